// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::reverse_in_block (seed 000's trace) and ksync::cuda::reverse against a host reference.
#include "../../support/gpu.hpp"
#include "../../support/reference.hpp"

#include <ksync/cuda/block/reverse.hpp>
#include <ksync/cuda/detail/device_buffer.hpp>
#include <ksync/cuda/device/reverse.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ksync::cuda::device_buffer;

template <class T>
class NativeReverseGpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(NativeReverseGpu, ValueTypes);

TYPED_TEST(NativeReverseGpu, InBlockFollowsSeed000ForEveryCountUpTo128) {
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

TYPED_TEST(NativeReverseGpu, OutOfPlaceAndInPlaceMatchTheReferenceForEveryBlockSizeAndSize) {
  KSYNC_REQUIRE_GPU();
  using T = TypeParam;
  for (const int block : {1, 7, 32, 96, 100, 128, 256, 1024}) {
    for (const auto n : ksync::test::boundary_sizes) {
      if (!ksync::test::size_enabled(n) || (n > 100'000 && block != 256)) continue;
      SCOPED_TRACE(::testing::Message() << "block = " << block << ", n = " << n);
      const auto host = ksync::test::distinct_values<T>(n, 11);
      const auto expected = ksync::test::reversed(host);
      device_buffer<T> data(host);
      device_buffer<T> out(std::vector<T>(n, static_cast<T>(-1)));
      ksync::cuda::reverse(cudaStreamPerThread, data.data(), out.data(), n, block);
      ksync::cuda::reverse(cudaStreamPerThread, data.data(), n, block);
      ASSERT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
      EXPECT_EQ(out.to_host(), expected);
      EXPECT_EQ(data.to_host(), expected);
    }
  }
}

TEST(NativeReverseArguments, MoreThan128ValuesInOneBlockAreRejected) {
  try {
    ksync::cuda::reverse_in_block<int>(nullptr, nullptr, nullptr, 129);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "ksync::cuda::reverse_in_block: n = 129 exceeds the one block of 128 threads");
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
