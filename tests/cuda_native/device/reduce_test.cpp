// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::reduce (native) against a host reference. Suites named *Gpu need a device and skip without
// one; the argument checks run everywhere, since they fail before any CUDA call.
#include "../../support/gpu.hpp"
#include "../../support/reference.hpp"
#include "../../support/types.hpp"

#include <ksync/cuda/detail/device_buffer.hpp>
#include <ksync/cuda/device/reduce.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

template <class T>
class NativeReduceGpu : public ::testing::Test {};
TYPED_TEST_SUITE(NativeReduceGpu, ksync::test::value_types);

TYPED_TEST(NativeReduceGpu, BlockingSumEqualsHostReferenceAtBoundarySizes) {
  KSYNC_REQUIRE_GPU();
  using T = TypeParam;
  for (const auto n : ksync::test::reduce_sizes) {
    SCOPED_TRACE(::testing::Message() << "n = " << n);
    const auto host = ksync::test::small_integers<T>(n, 17u + static_cast<std::uint32_t>(n));
    const ksync::cuda::device_buffer<T> data(host);
    EXPECT_EQ(ksync::cuda::reduce(cudaStreamPerThread, data.data(), n), static_cast<T>(ksync::test::exact_sum(host)));
  }
}

TYPED_TEST(NativeReduceGpu, AsyncSumOverwritesAPoisonedDeviceResultOnAUserStream) {
  KSYNC_REQUIRE_GPU();
  using T = TypeParam;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (const auto n : ksync::test::reduce_sizes) {
    SCOPED_TRACE(::testing::Message() << "n = " << n);
    const auto host = ksync::test::small_integers<T>(n, 29u + static_cast<std::uint32_t>(n));
    const ksync::cuda::device_buffer<T> data(host);
    ksync::cuda::device_buffer<T> result(std::vector<T>{static_cast<T>(-12345)});  // poisoned
    ksync::cuda::reduce(stream, data.data(), n, result.data());
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(result.to_host().at(0), static_cast<T>(ksync::test::exact_sum(host)));
  }
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

template <class T>
class NativeReduceRoundingGpu : public ::testing::Test {};
TYPED_TEST_SUITE(NativeReduceRoundingGpu, ksync::test::floating_types);

TYPED_TEST(NativeReduceRoundingGpu, ErrorStaysWithinTheBoundForAnySummationOrder) {
  KSYNC_REQUIRE_GPU();
  using T = TypeParam;
  for (const auto n : ksync::test::reduce_sizes) {
    SCOPED_TRACE(::testing::Message() << "n = " << n);
    const auto host = ksync::test::signed_fractions<T>(n, 41u + static_cast<std::uint32_t>(n));
    const ksync::cuda::device_buffer<T> data(host);
    const long double error = static_cast<long double>(ksync::cuda::reduce(cudaStreamPerThread, data.data(), n)) -
                              ksync::test::exact_sum(host);
    EXPECT_LE(std::fabs(error), ksync::test::sum_error_bound(host));
  }
}

TEST(NativeReduceArguments, NullDataWithElementsIsRejectedWithItsSize) {
  float result_storage = 0;  // never written: the check fires before any CUDA call
  try {
    ksync::cuda::reduce<float>(nullptr, nullptr, 5, &result_storage);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "ksync::cuda::reduce: data is null but n = 5");
  }
}

TEST(NativeReduceArguments, BlockingCallChecksDataBeforeAllocating) {
  EXPECT_THROW((void)ksync::cuda::reduce<std::int64_t>(nullptr, nullptr, 3), std::invalid_argument);
}

TEST(NativeReduceArguments, NullResultIsRejected) {
  const double value = 1.0;
  EXPECT_THROW(ksync::cuda::reduce<double>(nullptr, &value, 1, nullptr), std::invalid_argument);
}

TEST(NativeReduceArguments, CudaErrorsNameTheCallAndTheirPlace) {
  try {
    KSYNC_CUDA_CHECK(cudaErrorInvalidValue);
    FAIL() << "expected ksync::cuda::cuda_error";
  } catch (const ksync::cuda::cuda_error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cudaErrorInvalidValue failed: cudaErrorInvalidValue"), std::string::npos) << message;
    EXPECT_NE(message.find("reduce_test.cpp:"), std::string::npos) << message;
    EXPECT_EQ(error.code(), cudaErrorInvalidValue);
  }
}

}  // namespace
