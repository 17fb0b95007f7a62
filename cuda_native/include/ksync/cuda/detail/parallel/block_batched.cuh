// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// index_strategy::block_batched — block b of 256 threads covers the 4 * 256 consecutive indices from
// b * 1024; thread t calls f for t, t + 256, t + 512, t + 768 of them, so that each of the four steps is one
// contiguous sweep of the block. A quarter of thread_per_index's blocks: fewer threads to start and retire
// per index, and f's index arithmetic shared by four calls. f's loads are not moved above its stores (the
// compiler cannot know that they do not alias), so each thread still has one index's loads in flight at a
// time (docs/index-functors.md).
#pragma once

#include <ksync/cuda/detail/parallel/grid_limit.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/index_strategy.hpp>

#include <cstdint>

namespace ksync::cuda::detail {

template <int BlockSize, int Batch, class Index, class F>
__global__ void __launch_bounds__(BlockSize) for_block_batched(Index n, F f) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * (BlockSize * Batch) + threadIdx.x;
  if (first + (Batch - 1) * BlockSize < n) {  // every block but the last: no bound to test per index
#pragma unroll
    for (int k = 0; k < Batch; ++k)
      f(static_cast<Index>(first + k * BlockSize));
  } else {
#pragma unroll
    for (int k = 0; k < Batch; ++k) {
      const std::int64_t i = first + k * BlockSize;
      if (i < n) f(static_cast<Index>(i));
    }
  }
}

namespace index_strategies {

struct block_batched : ksync::detail::implements<index_strategy::block_batched> {
  static constexpr int block_size = 256;
  static constexpr int batch = 4;
  template <class Index, class F>
  static void launch(cudaStream_t stream, Index n, const F& f) {
    constexpr std::int64_t per_block = block_size * batch;
    const auto blocks = (static_cast<std::int64_t>(n) + per_block - 1) / per_block;
    check_grid_fits("block_batched", n, blocks);
    for_block_batched<block_size, batch, Index, F><<<static_cast<unsigned int>(blocks), block_size, 0, stream>>>(n, f);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::parallel_for (block_batched)");
  }
};

}  // namespace index_strategies
}  // namespace ksync::cuda::detail
