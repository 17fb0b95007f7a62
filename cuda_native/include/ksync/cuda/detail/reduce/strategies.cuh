// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The native reduction strategies, one file each in this folder, and the one table that maps
// ksync::reduce_strategy to them (ksync/detail/strategy_table.hpp, the template both halves use). The table is
// complete at compile time: every native strategy of types.hpp has exactly one row (strategy_table checks it), so
// a strategy cannot be half added, and no `default:` sends an unknown one elsewhere. `automatic` is resolved
// to a row by native_choice(), in the open.
//
// Adding a strategy: one file here (a struct deriving from implements<id> with `result_is_one_store`, or from
// one_store_result<id> where that is true, with a device-side `finish` and a host-side `launch`, as
// last_block.cuh), its enumerator and row in ksync/types.hpp (where is_native() and the names come from), and
// its row below. docs/architecture.md shows the diff.
#pragma once

#include <ksync/cuda/detail/reduce/atomics.cuh>
#include <ksync/cuda/detail/reduce/cluster.cuh>
#include <ksync/cuda/detail/reduce/grid_sync.cuh>
#include <ksync/cuda/detail/reduce/last_block.cuh>
#include <ksync/cuda/detail/reduce/two_pass.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail {

using native_reduce_strategies =
    ksync::detail::strategy_table<strategy_half::native, reduce_strategies::two_pass, reduce_strategies::last_block,
                                  reduce_strategies::grid_sync, reduce_strategies::cluster, reduce_strategies::atomics>;

// The row `automatic` runs: the single-pass last_block, the fastest measured at every size (docs/reductions.md).
constexpr reduce_strategy native_choice(reduce_strategy strategy) {
  return strategy == reduce_strategy::automatic ? reduce_strategy::last_block : strategy;
}

}  // namespace ksync::cuda::detail
