// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The native index strategies of ksync::cuda::parallel_for, one file each in this folder, and the one table
// that maps ksync::index_strategy to them (complete at compile time: strategy_table checks it). `automatic`
// is resolved by native_index_choice().
#pragma once

#include <ksync/cuda/detail/parallel/block_batched.cuh>
#include <ksync/cuda/detail/parallel/grid_limit.hpp>
#include <ksync/cuda/detail/parallel/grid_stride.cuh>
#include <ksync/cuda/detail/parallel/thread_per_index.cuh>
#include <ksync/detail/strategy_table.hpp>

#include <cstdint>

namespace ksync::cuda::detail {

using native_index_strategies =
    ksync::detail::strategy_table<strategy_half::native, index_strategies::thread_per_index,
                                  index_strategies::block_batched, index_strategies::grid_stride>;

// The row `automatic` runs: block_batched, unless n leaves it fewer blocks than an H200 has multiprocessors
// (132), where thread_per_index spreads the work wider (docs/index-functors.md has the measurements), or
// more blocks than a grid holds, where grid_stride loops.
constexpr index_strategy native_index_choice(index_strategy strategy, std::int64_t n) {
  if (strategy != index_strategy::automatic) return strategy;
  constexpr std::int64_t batched_per_block =
      index_strategies::block_batched::block_size * index_strategies::block_batched::batch;
  if (n > max_grid_blocks * batched_per_block) return index_strategy::grid_stride;
  return n >= 132 * batched_per_block ? index_strategy::block_batched : index_strategy::thread_per_index;
}

}  // namespace ksync::cuda::detail
