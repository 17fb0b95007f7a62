// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The grand total of a persistent kernel's per-block partial sums, a grid-scope building block: each block
// writes its share before a grid barrier (grid/barrier.cuh), and after it every block forms the same total
// itself, so no block has to broadcast it.
//   grid_total  the sum of partials[0, count), returned to every thread of the block.
// Used by CG's persistent kernels (detail/cg/).
#pragma once

#include <ksync/cuda/block/reduce.cuh>
#include <ksync/cuda/grid/last_block.cuh>  // fold_partials
#include <ksync/cuda/warp/reduce.cuh>
#include <ksync/ops.hpp>

namespace ksync::cuda::detail {

// The sum of partials[0, count), written by other blocks before a grid barrier, returned to every thread.
// Small grids (count <= every_warp_folds_up_to, where the latency of block barriers is what an iteration
// costs): every warp forms it on its own with shuffles alone, each lane folding the same stride of partials
// in the same order, and the butterfly leaves the same bits in every lane — no block barrier. Larger grids:
// the block folds the partials once and shares the total through `total`, since every warp reading every
// partial would multiply the loads by the warps of the grid (docs/solvers.md: slower from m = 512 up).
// Volatile loads: the slots are rewritten every iteration and an L1 line from the previous one could be
// stale. count is grid-uniform, so the branch is too. `scratch` and `total` are the phase's own; their
// previous reads ended before the grid barrier that precedes this call.
inline constexpr unsigned int every_warp_folds_up_to = 128;

template <int BlockSize, class T>
__device__ T grid_total(const T* partials, unsigned int count, block::shuffle_storage<T, BlockSize>& scratch,
                        T& total) {
  if (count <= every_warp_folds_up_to) {
    T value = 0;
    for (unsigned int i = warp::lane_id(); i < count; i += 32)
      value += *static_cast<const volatile T*>(partials + i);
    return warp::reduce_all(value, plus{});
  }
  const T value = fold_partials<BlockSize>(partials, count, scratch, plus{});
  if (threadIdx.x == 0) total = value;
  // Participation: the whole block (the branch is grid-uniform). Data: total, written by thread 0.
  // Publishes the grand total to the block.
  __syncthreads();
  return total;
}

}  // namespace ksync::cuda::detail
