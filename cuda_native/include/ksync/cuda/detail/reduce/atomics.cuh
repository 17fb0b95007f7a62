// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// reduce_strategy::atomics: every block combines its value into the result with one atomic operation,
// after a one-thread kernel has set the result to the operator's identity. The order of the combines is
// not fixed, so float sums may differ in their last bits from call to call.
#pragma once

#include <ksync/cuda/detail/atomic_combine.cuh>
#include <ksync/cuda/detail/reduce/kernel.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail::reduce_strategies {

// Writes the identity of `Op` into *result: the starting value the atomics strategy combines into.
template <class T, class Op>
__global__ void store_identity(T* result) {
  *result = Op::template identity<T>();
}

struct atomics : ksync::detail::implements<reduce_strategy::atomics> {
  // The result is combined into with atomics, which host memory over the bus does not take: a blocking
  // call gets it from a device slot.
  static constexpr bool result_is_one_store = false;

  template <int BlockSize, class T, class Op>
  __device__ static void finish(T block_value, T* /*partials*/, unsigned int* /*ticket*/,
                                const reduce_target<T>& result, block::shuffle_storage<T, BlockSize>& /*scratch*/,
                                Op op) {
    if (threadIdx.x == 0) atomic_combine(result.value, block_value, op);
  }

  template <int BlockSize, class Reader, class Op>
  static void launch(cudaStream_t stream, const Reader& reader, std::size_t n, Op op,
                     reduce_target<typename Reader::value_type> result, const reduce_tuning& tuning) {
    using T = typename Reader::value_type;
    // Never a target the kernel publishes: a blocking call gives this strategy a device slot (above).
    check_argument(result.epoch.address == nullptr, "ksync::cuda::reduce atomics",
                   "result is a mailbox slot for the kernel to publish; atomics combine into device memory only");
    const reduce_grid grid = plan_reduce_grid<BlockSize, atomics, Reader, Op>(stream, n, tuning);
    store_identity<T, Op><<<1, 1, 0, stream>>>(result.value);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::reduce atomics: store_identity");
    reduce_kernel<BlockSize, atomics, Reader, Op><<<grid.blocks, BlockSize, 0, stream>>>(
        reader, n, op, static_cast<T*>(grid.workspace->partials), grid.workspace->ticket, result);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::reduce atomics");
  }
};

}  // namespace ksync::cuda::detail::reduce_strategies
