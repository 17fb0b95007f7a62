// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::reverse_in_block (the participation-bound worked example) against a host reference.
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

namespace ksync::test {
namespace {

KSYNC_TYPED_GPU_SUITE(NativeReverseInBlockGpu, value_types);

TYPED_TEST(NativeReverseInBlockGpu, InBlockReversesEveryCountUpTo128) {
  using T = TypeParam;
  for (std::size_t n = 0; n <= 128; ++n) {
    SCOPED_TRACE(::testing::Message() << "n = " << n);
    const auto host = distinct_values<T>(n, 3);
    const cuda::device_buffer<T> in(host);
    cuda::device_buffer<T> out(std::vector<T>(n, static_cast<T>(-1)));  // poisoned
    ksync::cuda::reverse_in_block(cudaStreamPerThread, in.data(), out.data(), n);
    ASSERT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
    EXPECT_EQ(out.to_host(), reversed(host));
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
}  // namespace ksync::test
