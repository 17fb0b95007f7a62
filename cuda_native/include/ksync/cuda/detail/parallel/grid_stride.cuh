// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// index_strategy::grid_stride — as many blocks of 256 as the occupancy model says can be resident on the
// stream's device, each thread looping over [0, n) in steps of the grid (grid/stride.cuh). No block is
// started after the first wave; the loop's bound and stride are tested for every index.
#pragma once

#include <ksync/cuda/error.hpp>
#include <ksync/cuda/grid/stride.cuh>
#include <ksync/cuda/runtime.hpp>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/index_strategy.hpp>

#include <algorithm>
#include <cstdint>

namespace ksync::cuda::detail {

template <class Index, class F>
__global__ void for_grid_stride(Index n, F f) {
  for (std::int64_t i = grid_stride_begin(); i < n; i += grid_stride())
    f(static_cast<Index>(i));
}

namespace index_strategies {

struct grid_stride : ksync::detail::implements<index_strategy::grid_stride> {
  static constexpr int block_size = 256;
  template <class Index, class F>
  static void launch(cudaStream_t stream, Index n, const F& f) {
    const auto kernel = for_grid_stride<Index, F>;
    int blocks_per_sm = 0;
    KSYNC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, block_size, 0));
    const std::int64_t resident =
        static_cast<std::int64_t>(std::max(1, blocks_per_sm)) * multiprocessor_count(stream_device(stream));
    const std::int64_t needed = (static_cast<std::int64_t>(n) + block_size - 1) / block_size;
    kernel<<<static_cast<unsigned int>(std::min(needed, resident)), block_size, 0, stream>>>(n, f);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::parallel_for (grid_stride)");
  }
};

}  // namespace index_strategies
}  // namespace ksync::cuda::detail
