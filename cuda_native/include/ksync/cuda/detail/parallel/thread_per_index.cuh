// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// index_strategy::thread_per_index — one index per thread, blocks of 256: the kernel CUDA code is usually
// written as. Each thread issues its one index's loads and exits, so the loads in flight per
// multiprocessor are bounded by its resident threads (docs/index-functors.md).
#pragma once

#include <ksync/cuda/detail/parallel/grid_limit.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/index_strategy.hpp>

#include <cstdint>

namespace ksync::cuda::detail {

template <class Index, class F>
__global__ void for_thread_per_index(Index n, F f) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) f(static_cast<Index>(i));
}

namespace index_strategies {

struct thread_per_index : ksync::detail::implements<index_strategy::thread_per_index> {
  static constexpr int block_size = 256;
  template <class Index, class F>
  static void launch(cudaStream_t stream, Index n, const F& f) {
    const auto blocks = (static_cast<std::int64_t>(n) + block_size - 1) / block_size;
    check_grid_fits("thread_per_index", n, blocks);
    for_thread_per_index<Index, F><<<static_cast<unsigned int>(blocks), block_size, 0, stream>>>(n, f);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::parallel_for (thread_per_index)");
  }
};

}  // namespace index_strategies
}  // namespace ksync::cuda::detail
