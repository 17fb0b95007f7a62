// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::reverse_in_block (seed 000's trace) against a host reference.
#include "../../support/gpu.hpp"
#include "../../support/reference.hpp"
#include "../../support/types.hpp"

#include <ksync/cuda/device/reverse_in_block.hpp>
#include <ksync/cuda/device_buffer.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ksync::cuda::device_buffer;

KSYNC_TYPED_SUITE(NativeReverseInBlockGpu, ksync::test::value_types);

TYPED_TEST(NativeReverseInBlockGpu, InBlockFollowsSeed000ForEveryCountUpTo128) {
  KSYNC_REQUIRE_GPU();
  using T = TypeParam;
  for (std::size_t n = 0; n <= 128; ++n) {
    SCOPED_TRACE(::testing::Message() << "n = " << n);
    const auto host = ksync::test::distinct_values<T>(n, 3);
    const device_buffer<T> in(host);
    device_buffer<T> out(std::vector<T>(n, static_cast<T>(-1)));  // poisoned
    ksync::cuda::reverse_in_block(cudaStreamPerThread, in.data(), out.data(), n);
    ASSERT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
    EXPECT_EQ(out.to_host(), ksync::test::reversed(host));
  }
}

TEST(NativeReverseInBlockArguments, MoreThan128ValuesInOneBlockAreRejected) {
  try {
    ksync::cuda::reverse_in_block<int>(nullptr, nullptr, nullptr, 129);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "ksync::cuda::reverse_in_block: n = 129 exceeds the one block of 128 threads");
  }
}

}  // namespace
