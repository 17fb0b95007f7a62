// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::segment_predicates against a host reference.
#include "../../support/gpu.hpp"
#include "../../support/reference.hpp"

#include <ksync/cuda/device/predicates.hpp>
#include <ksync/cuda/device_buffer.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace ksync::test {
namespace {

TEST(NativeSegmentPredicatesGpu, CountAllAnyMatchTheReference) {
  KSYNC_REQUIRE_GPU();
  for (const int segment : {1, 17, 32, 96, 100, 128, 256, 1024}) {
    for (const auto n : boundary_sizes) {
      if (!size_enabled(n) || (n > 100'000 && segment != 256)) continue;
      SCOPED_TRACE(::testing::Message() << "segment = " << segment << ", n = " << n);
      const auto flags = mixed_flags(n, segment, 5u + static_cast<std::uint32_t>(n));
      const auto expected = segment_predicates_reference(flags, segment);
      const cuda::device_buffer<std::int32_t> data(flags);
      cuda::device_buffer<ksync::predicate_summary> out(
          std::vector<ksync::predicate_summary>(expected.size(), {.count = -1, .all = -1, .any = -1}));
      ksync::cuda::segment_predicates(cudaStreamPerThread, data.data(), n, segment, out.data());
      ASSERT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
      EXPECT_EQ(out.to_host(), expected);
    }
  }
}

TEST(NativeSegmentReduceArguments, PredicateSegmentsOutsideABlockAreRejected) {
  std::int32_t flag = 1;
  ksync::predicate_summary summary;
  EXPECT_THROW(ksync::cuda::segment_predicates(nullptr, &flag, 1, 0, &summary), std::invalid_argument);
  EXPECT_THROW(ksync::cuda::segment_predicates(nullptr, &flag, 1, 1025, &summary), std::invalid_argument);
  EXPECT_THROW(ksync::cuda::segment_predicates(nullptr, nullptr, 1, 32, &summary), std::invalid_argument);
}

}  // namespace
}  // namespace ksync::test
