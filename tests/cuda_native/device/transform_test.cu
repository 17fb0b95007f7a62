// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::transform (native) against a host reference.
#include "../../support/functors.hpp"
#include "../../support/gpu.hpp"
#include "../../support/reference.hpp"
#include "../../support/types.hpp"

#include <ksync/cuda/device/transform.cuh>
#include <ksync/cuda/device_buffer.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ksync::test {
namespace {

KSYNC_TYPED_GPU_SUITE(NativeTransformGpu, value_types);

TYPED_TEST(NativeTransformGpu, OutOfPlaceInPlaceAndMisalignedMatchTheReference) {
  using T = TypeParam;
  // The default grid (resident blocks, grid-stride) and grids sized from the data (1 and 3 items per thread).
  const ksync::cuda::transform_tuning tunings[] = {
      {}, {.items_per_thread = 1}, {.block_size = 128, .items_per_thread = 3, .streaming_stores = true}};
  for (const auto n : device_reduce_sizes) {
    if (!size_enabled(n)) continue;
    const auto host = exact_reduction_input<T>(n + 1, 9u);
    std::vector<T> expected(host.size());
    for (std::size_t i = 0; i < host.size(); ++i)
      expected[i] = TwiceAndOne{}(host[i]);
    for (const auto& tuning : tunings) {
      SCOPED_TRACE(::testing::Message() << "n = " << n << ", block_size = " << tuning.block_size
                                        << ", items_per_thread = " << tuning.items_per_thread);
      cuda::device_buffer<T> in(host);
      cuda::device_buffer<T> out(n + 1);
      ksync::cuda::transform(cudaStreamPerThread, in.data(), n + 1, out.data(), TwiceAndOne{}, tuning);
      EXPECT_EQ(out.to_host(), expected);
      // Misaligned by one element on both sides (the scalar path), n elements.
      cuda::device_buffer<T> shifted(n + 1);
      shifted.copy_from(std::vector<T>(n + 1, T{0}));
      ksync::cuda::transform(cudaStreamPerThread, in.data() + 1, n, shifted.data() + 1, TwiceAndOne{}, tuning);
      std::vector<T> expected_shifted(expected);
      expected_shifted[0] = T{0};
      EXPECT_EQ(shifted.to_host(), expected_shifted);
      ksync::cuda::transform(cudaStreamPerThread, in.data(), n + 1, in.data(), TwiceAndOne{}, tuning);  // in place
      EXPECT_EQ(in.to_host(), expected);
    }
  }
}

TEST(NativeTransformArguments, NullArraysAndPartialOverlapAreRejected) {
  float storage[8] = {};
  try {
    ksync::cuda::transform(nullptr, static_cast<const float*>(nullptr), 4, storage, TwiceAndOne{});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "ksync::cuda::transform: in is null but n = 4");
  }
  EXPECT_THROW(ksync::cuda::transform(nullptr, storage, 4, storage + 2, TwiceAndOne{}), std::invalid_argument);
  EXPECT_THROW(ksync::cuda::transform(nullptr, storage, 4, storage + 4, TwiceAndOne{}, {.block_size = 2048}),
               std::invalid_argument);
  try {
    ksync::cuda::transform(nullptr, storage, 4, storage + 4, TwiceAndOne{}, {.items_per_thread = -1});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "ksync::cuda::transform: tuning.items_per_thread = -1 is negative");
  }
}

}  // namespace
}  // namespace ksync::test
