// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// reduce_strategy::last_block (a single-pass reduction): each block publishes its partial behind
// __threadfence and takes a ticket; the block that takes the last ticket combines the partials. One kernel.
#pragma once

#include <ksync/cuda/detail/reduce/kernel.cuh>
#include <ksync/cuda/grid/last_block.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail::reduce_strategies {

struct last_block : one_store_result<reduce_strategy::last_block> {
  template <int BlockSize, class T, class Op>
  __device__ static void finish(T block_value, T* partials, unsigned int* ticket, const reduce_target<T>& result,
                                block::shuffle_storage<T, BlockSize>& scratch, Op op) {
    // finish_last_block's barrier comes before its reuse of scratch, so warp 0 has read it by then.
    finish_last_block<BlockSize>(block_value, blockIdx.x, gridDim.x, partials, ticket, result, scratch, op);
  }

  template <int BlockSize, class Reader, class Op>
  static void launch(cudaStream_t stream, const Reader& reader, std::size_t n, Op op,
                     reduce_target<typename Reader::value_type> result, const reduce_tuning& tuning) {
    using T = typename Reader::value_type;
    const reduce_grid grid = plan_reduce_grid<BlockSize, last_block, Reader, Op>(stream, n, tuning);
    reduce_kernel<BlockSize, last_block, Reader, Op><<<grid.blocks, BlockSize, 0, stream>>>(
        reader, n, op, static_cast<T*>(grid.workspace->partials), grid.workspace->ticket, result);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::reduce last_block");
  }
};

}  // namespace ksync::cuda::detail::reduce_strategies
