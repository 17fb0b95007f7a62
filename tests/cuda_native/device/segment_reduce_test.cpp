// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::segment_reduce against a host reference; segment_predicates is in predicates_test.cpp.
#include "../../support/errors.hpp"
#include "../../support/gpu.hpp"
#include "../../support/reference.hpp"
#include "../../support/types.hpp"

#include <ksync/cuda/device/segment_reduce.hpp>
#include <ksync/cuda/device_buffer.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ksync::test {
namespace {

const std::vector<ksync::segment_form> forms = ksync::ids_of_half<ksync::segment_form>(ksync::strategy_half::native);

KSYNC_TYPED_GPU_SUITE(NativeSegmentReduceGpu, value_types);

TYPED_TEST(NativeSegmentReduceGpu, EveryFormOperatorAndBlockSizeMatchesTheReference) {
  using T = TypeParam;
  for_each_segment_reduce_case<T>(
      ksync::cuda::segment_reduce_sizes, [](const std::vector<T>& host) { return cuda::device_buffer<T>(host); },
      [&](const cuda::device_buffer<T>& data, std::size_t n, int segment, reduce_op op,
          const std::vector<T>& expected) {
        for (const auto form : forms) {
          SCOPED_TRACE(::testing::Message() << "n = " << n << ", segment = " << segment << ", op = "
                                            << ksync::to_string(op) << ", form = " << ksync::to_string(form));
          cuda::device_buffer<T> out(std::vector<T>(expected.size(), static_cast<T>(12345)));  // poisoned
          ksync::cuda::segment_reduce(cudaStreamPerThread, data.data(), n, segment, op, form, out.data());
          ASSERT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
          EXPECT_EQ(out.to_host(), expected);
        }
      });
}

// Sizes not compiled in are refused with the list of those that are; portable forms naming the form.
TEST(NativeSegmentReduceArguments, SizesNotCompiledInAndPortableFormsAreRefused) {
  float value = 0;
  const auto refused = [&](int segment_size, ksync::segment_form form, const std::string& expected) {
    return refuses(
        [&] {
          ksync::cuda::segment_reduce<float>(nullptr, &value, 1, segment_size, ksync::reduce_op::sum, form, &value);
        },
        expected);
  };
  const int compiled = ksync::cuda::segment_reduce_sizes.front();
  const int absent = 64;
  ASSERT_EQ(std::ranges::count(ksync::cuda::segment_reduce_sizes, absent), 0);
  std::ostringstream sizes;
  for (const int size : ksync::cuda::segment_reduce_sizes)
    sizes << (size == compiled ? "" : ", ") << size;
  for (const auto form : forms) {
    EXPECT_TRUE(refused(
        absent, form, "ksync::cuda::segment_reduce: segment_size = 64 is not compiled in; use one of " + sizes.str()));
  }
  for (const auto form : ksync::all_segment_forms) {  // the portable half's own forms, refused naming ksync::cuda's
    if (ksync::half_of(form) != ksync::strategy_half::portable) continue;
    std::ostringstream expected;
    expected << "ksync::cuda::segment_reduce: form = " << ksync::to_string(form)
             << " is portable (Kokkos); ksync::cuda runs "
             << ksync::names_of_half<ksync::segment_form>{ksync::strategy_half::native};
    EXPECT_TRUE(refused(compiled, form, expected.str()));
  }
}

}  // namespace
}  // namespace ksync::test
