// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Runs the native_segment example (segment_form::serial): the test executable compiles the library's
// segment_reduce.cu against the patched headers, which instantiates every row of the forms' table, and
// holds the new form to the host reference on the cases the library's own forms are tested on.
#include "../support/gpu.hpp"
#include "../support/reference.hpp"

#include <ksync/cuda/device/segment_reduce.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

static_assert(ksync::is_native(ksync::segment_form::serial), "the example's row makes it native");

TEST(StrategyExampleGpu, SerialSegmentFormMatchesTheReference) {
  KSYNC_REQUIRE_GPU();
  using T = std::int32_t;
  ksync::test::for_each_segment_reduce_case<T>(
      ksync::cuda::segment_reduce_sizes, [](const std::vector<T>& host) { return ksync::cuda::device_buffer<T>(host); },
      [](const ksync::cuda::device_buffer<T>& data, std::size_t n, int segment, ksync::reduce_op op,
         const std::vector<T>& expected) {
        SCOPED_TRACE(::testing::Message()
                     << "n = " << n << ", segment = " << segment << ", op = " << ksync::to_string(op));
        ksync::cuda::device_buffer<T> out(std::vector<T>(expected.size(), T{12345}));  // poisoned
        ksync::cuda::segment_reduce(cudaStreamPerThread, data.data(), n, segment, op, ksync::segment_form::serial,
                                    out.data());
        KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
        EXPECT_EQ(out.to_host(), expected);
      });
}

}  // namespace
