// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The portable index strategies of ksync::parallel_for and ksync::parallel_reduce, one file each in this
// folder, and the one table that maps ksync::index_strategy to them (complete at compile time:
// strategy_table checks it). `automatic` is resolved by portable_index_choice() (portable_pair_choice() for the
// 2-D forms); the native rows never reach the table: parallel_for hands them to the bridge, or refuses them
// where there is none.
#pragma once

#include <ksync/backend.hpp>
#include <ksync/detail/parallel/batched.hpp>
#include <ksync/detail/parallel/kokkos.hpp>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::detail {

using portable_index_strategies =
    strategy_table<strategy_half::portable, index_strategies::kokkos, index_strategies::batched>;

// The row `automatic` runs where it stays portable (on Kokkos::Cuda with the native half, parallel_for hands
// it to the bridge first: automatic_for_runs_native). parallel_for: batched on GPU backends (on an H200 it
// moved 1.9x what Kokkos' RangePolicy moved for a float copy of 2^28 elements, docs/index-functors.md), kokkos
// on host backends, whose RangePolicy already gives each thread one contiguous share. parallel_reduce: kokkos:
// Kokkos' reduction already folds several indices per thread, and the batched walk read 0.66x as fast there
// on an H200 (on host backends parallel_reduce folds `automatic` as reduce_strategy::tuned before this table
// is reached, where the result allows it: parallel_reduce.hpp).
template <class ExecutionSpace>
constexpr index_strategy portable_index_choice(index_strategy strategy, bool reduction) {
  if (strategy != index_strategy::automatic) return strategy;
  return runs_on_host<ExecutionSpace> || reduction ? index_strategy::kokkos : index_strategy::batched;
}

// The row `automatic` runs in the 2-D forms where it stays portable: batched on every backend (on GPU
// backends the batches over the flat index, as the 1-D parallel_for; on host backends a line of the fast
// index per work item, 1.2-3.6x MDRangePolicy for Copy and Triad on OpenMP, docs/index-functors.md). A 2-D
// reduction whose result tuned can fold leaves `automatic` to the 1-D form instead (parallel_reduce.hpp).
constexpr index_strategy portable_pair_choice(index_strategy strategy) {
  return strategy == index_strategy::automatic ? index_strategy::batched : strategy;
}

}  // namespace ksync::detail
