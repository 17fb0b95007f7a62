// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How a failed CUDA call leaves ksync::cuda (ksync/cuda/error.hpp): cuda_error names the call, the CUDA
// error and its place. Runs everywhere: no CUDA call is made.
#include <ksync/cuda/error.hpp>

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

}  // namespace
