// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The native_reduce example of docs/architecture.md, applied to a copy of the headers (CMakeLists.txt
// here): reduce_strategy::single_block, one file and one row, instantiated through the native table by a
// transform_reduce with a user functor; native_reduce_test.cu runs it. Built without its table row
// (native_rowless), the same file must not compile.
#include <ksync/cuda/device/reduce.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>

static_assert(ksync::is_native(ksync::reduce_strategy::single_block), "the example's row makes it native");

namespace {
struct square {
  __device__ float operator()(float x) const { return x * x; }
};
}  // namespace

void sum_of_squares_in_one_block(cudaStream_t stream, const float* data, std::size_t n, float* result) {
  ksync::cuda::transform_reduce(stream, data, n, ksync::reduce_op::sum, square{}, ksync::reduce_strategy::single_block,
                                result);
}
