// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Runs the native_reduce example (native_reduce.cu): the test executable compiles the library's reduce.cu
// against the patched headers too, so single_block's row reaches the argument checks as a strategy the
// library had from the start would. Every square below is a multiple of 1/16 and every sum stays under
// 2^24 sixteenths, so the float sum is exact in any order and is compared bit for bit.
#include "../support/gpu.hpp"

#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

void sum_of_squares_in_one_block(cudaStream_t stream, const float* data, std::size_t n, float* result);

namespace {

TEST(StrategyExampleGpu, SingleBlockSumsTheSquaresOfEverySize) {
  KSYNC_REQUIRE_GPU();
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{255}, std::size_t{256}, std::size_t{257},
                              std::size_t{100'003}, std::size_t{1} << 20}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<float> host(n);
    float expected = 0;
    for (std::size_t i = 0; i < n; ++i) {
      host[i] = 0.25f * static_cast<float>(i % 7) - 0.75f;
      expected += host[i] * host[i];
    }
    const ksync::cuda::device_buffer<float> data(host);
    ksync::cuda::device_buffer<float> result(std::vector<float>{-1.0f});  // poisoned
    sum_of_squares_in_one_block(cudaStreamPerThread, data.data(), n, result.data());
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    EXPECT_EQ(result.to_host().front(), expected);
  }
}

}  // namespace
