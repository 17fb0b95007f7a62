// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How a failed CUDA call leaves ksync::cuda (ksync/cuda/error.hpp): cuda_error names the call, the CUDA
// error and its place. Runs everywhere: no CUDA call is made, but for the driver's error names (a GPU's driver).
#include <ksync/cuda/detail/driver_entry.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/runtime.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

TEST(NativeReduceArguments, CudaErrorsNameTheCallAndTheirPlace) {
  try {
    KSYNC_CUDA_CHECK(cudaErrorInvalidValue);
    FAIL() << "expected ksync::cuda::cuda_error";
  } catch (const ksync::cuda::cuda_error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cudaErrorInvalidValue failed: cudaErrorInvalidValue"), std::string::npos) << message;
    EXPECT_NE(message.find("error_test.cpp:"), std::string::npos) << message;
    EXPECT_EQ(error.code(), cudaErrorInvalidValue);
  }
}

// A stream memory operation's failure names the driver's error (ksync/cuda/detail/distributed/peer_halo.hpp).
TEST(NativeReduceArguments, DriverErrorsHaveTheDriversNames) {
  if (ksync::cuda::visible_device_count() == 0) GTEST_SKIP() << "ksync-skip: needs a CUDA GPU (its driver)";
  EXPECT_STREQ(ksync::cuda::detail::driver_error_name(CUDA_ERROR_INVALID_VALUE), "CUDA_ERROR_INVALID_VALUE");
}

}  // namespace
