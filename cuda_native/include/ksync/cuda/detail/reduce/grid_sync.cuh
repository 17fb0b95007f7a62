// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// reduce_strategy::grid_sync: each block writes its partial, cooperative groups' grid.sync() makes them
// visible, and block 0 combines them. One cooperative kernel, whose every block must be resident at once:
// the grid never exceeds what the occupancy API says fits, and a tuning that asks for more is refused.
#pragma once

#include <ksync/cuda/detail/reduce/kernel.cuh>
#include <ksync/cuda/grid/co_resident.cuh>
#include <ksync/cuda/grid/last_block.cuh>
#include <ksync/detail/strategy_table.hpp>

#include <cooperative_groups.h>

namespace ksync::cuda::detail::reduce_strategies {

struct grid_sync : one_store_result<reduce_strategy::grid_sync> {
  template <int BlockSize, class T, class Op>
  __device__ static void finish(T block_value, T* partials, unsigned int* /*ticket*/, const reduce_target<T>& result,
                                block::shuffle_storage<T, BlockSize>& scratch, Op op) {
    if (threadIdx.x == 0) partials[blockIdx.x] = block_value;
    // Participation: every thread of every block of the grid — all co-resident, since the launcher sized the
    // grid from the occupancy API and launched it cooperatively. Data: partials[0, gridDim.x), one per
    // block. Publishes every block's partial (grid.sync orders memory device-wide) to block 0.
    cooperative_groups::this_grid().sync();
    if (blockIdx.x == 0) {  // block-uniform
      const T total = fold_partials<BlockSize>(partials, gridDim.x, scratch, op);
      if (threadIdx.x == 0) store_result(result, total);
    }
  }

  template <int BlockSize, class Reader, class Op>
  static void launch(cudaStream_t stream, const Reader& reader, std::size_t n, Op op,
                     reduce_target<typename Reader::value_type> result, const reduce_tuning& tuning) {
    using T = typename Reader::value_type;
    constexpr const char* where = "ksync::cuda::reduce";
    const reduce_grid grid = plan_reduce_grid<BlockSize, grid_sync, Reader, Op>(stream, n, tuning);
    check_argument(tuning.blocks_per_sm <= grid.resident_per_multiprocessor, where,
                   "strategy grid_sync needs every block resident at once, but tuning.blocks_per_sm = ",
                   tuning.blocks_per_sm, " and only ", grid.resident_per_multiprocessor, " blocks of ", BlockSize,
                   " threads of this kernel fit on one multiprocessor of device ", grid.device);
    check_cooperative_launch(where, grid.device);
    // Co-resident by construction: blocks <= blocks_per_sm (checked against the resident count above) times
    // the multiprocessors.
    cooperative_launch(
        reduce_kernel<BlockSize, grid_sync, Reader, Op>,
        grid_shape{
            .blocks = grid.blocks, .block_size = BlockSize, .dynamic_shared_bytes = 0, .blocks_per_multiprocessor = 0},
        stream, reader, n, op, static_cast<T*>(grid.workspace->partials), grid.workspace->ticket, result);
  }
};

}  // namespace ksync::cuda::detail::reduce_strategies
