// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::reverse (any n, any block size, out-of-place and in place) against a host reference.
#include "../../support/gpu.hpp"
#include "../../support/reference.hpp"
#include "../../support/types.hpp"

#include <ksync/cuda/device/reverse.hpp>
#include <ksync/cuda/device_buffer.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace ksync::test {
namespace {

KSYNC_TYPED_GPU_SUITE(NativeReverseGpu, value_types);

TYPED_TEST(NativeReverseGpu, OutOfPlaceAndInPlaceMatchTheReferenceForEveryBlockSizeAndSize) {
  using T = TypeParam;
  for (const int block : {1, 7, 32, 96, 100, 128, 256, 1024}) {
    for (const auto n : boundary_sizes) {
      if (!size_enabled(n) || (n > 100'000 && block != 256)) continue;
      SCOPED_TRACE(::testing::Message() << "block = " << block << ", n = " << n);
      const auto host = distinct_values<T>(n, 11);
      const auto expected = reversed(host);
      cuda::device_buffer<T> data(host);
      cuda::device_buffer<T> out(std::vector<T>(n, static_cast<T>(-1)));
      ksync::cuda::reverse(cudaStreamPerThread, data.data(), out.data(), n, block);
      ksync::cuda::reverse(cudaStreamPerThread, data.data(), n, block);
      ASSERT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
      EXPECT_EQ(out.to_host(), expected);
      EXPECT_EQ(data.to_host(), expected);
    }
  }
}

TEST(NativeReverseArguments, BadBlockSizesNullPointersAndOverlapsAreRejected) {
  std::vector<float> host(16);
  EXPECT_THROW(ksync::cuda::reverse<float>(nullptr, host.data(), host.data() + 8, 8, 0), std::invalid_argument);
  EXPECT_THROW(ksync::cuda::reverse<float>(nullptr, host.data(), host.data() + 8, 8, 1025), std::invalid_argument);
  EXPECT_THROW(ksync::cuda::reverse<float>(nullptr, nullptr, host.data(), 8), std::invalid_argument);
  EXPECT_THROW(ksync::cuda::reverse<float>(nullptr, host.data(), host.data() + 4, 8), std::invalid_argument);
  EXPECT_THROW(ksync::cuda::reverse<float>(nullptr, static_cast<float*>(nullptr), 3), std::invalid_argument);
}

}  // namespace
}  // namespace ksync::test
