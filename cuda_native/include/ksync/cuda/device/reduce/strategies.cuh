// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The native reduction strategies, one file each in this folder, and the one table that maps
// ksync::reduce_strategy to them. The table is complete at compile time: every strategy is_native() names
// has exactly one row (static_assert below), so a strategy cannot be half added, and no `default:` sends an
// unknown one elsewhere. `automatic` is resolved to a row by native_choice(), in the open.
//
// Adding a strategy: one file here (a struct with `id`, a device-side `finish` and a host-side `launch`,
// as last_block.cuh), its enumerator in ksync/types.hpp (where is_native() and the names come from), and
// its row below. docs/architecture.md shows the diff.
#pragma once

#include <ksync/cuda/device/reduce/atomics.cuh>
#include <ksync/cuda/device/reduce/cluster.cuh>
#include <ksync/cuda/device/reduce/grid_sync.cuh>
#include <ksync/cuda/device/reduce/last_block.cuh>
#include <ksync/cuda/device/reduce/two_pass.cuh>

#include <stdexcept>
#include <string>

namespace ksync::cuda::detail {

template <class... Strategies>
struct reduce_strategy_table {
  static constexpr bool has_row(reduce_strategy strategy) { return ((Strategies::id == strategy) || ...); }
  static constexpr int rows_for(reduce_strategy strategy) { return ((Strategies::id == strategy ? 1 : 0) + ...); }
  static constexpr bool rows_are_native() { return (is_native(Strategies::id) && ...); }

  // Calls body.template operator()<Strategy>() for the row of `strategy`.
  template <class Body>
  static void dispatch(reduce_strategy strategy, Body&& body) {
    const bool found = ((Strategies::id == strategy ? (body.template operator()<Strategies>(), true) : false) || ...);
    if (!found)  // not reached: check_reduce_arguments admits only strategies with a row
      throw std::logic_error("ksync::cuda::reduce: no row for strategy " + std::string(to_string(strategy)));
  }
};

using native_reduce_strategies =
    reduce_strategy_table<reduce_strategies::two_pass, reduce_strategies::last_block, reduce_strategies::grid_sync,
                          reduce_strategies::cluster, reduce_strategies::atomics>;

constexpr bool native_table_is_complete() {
  if (!native_reduce_strategies::rows_are_native()) return false;  // a row whose strategy types.hpp lacks
  for (const auto strategy : all_reduce_strategies) {
    const int rows = native_reduce_strategies::rows_for(strategy);
    if (rows != (is_native(strategy) ? 1 : 0)) return false;
  }
  return true;
}
static_assert(native_table_is_complete(),
              "native_reduce_strategies must have exactly one row per native reduce_strategy (is_native) and none "
              "for the others: add the strategy's file and its row together");

// The row `automatic` runs: the single-pass last_block, the fastest measured at every size (docs/reductions.md).
constexpr reduce_strategy native_choice(reduce_strategy strategy) {
  return strategy == reduce_strategy::automatic ? reduce_strategy::last_block : strategy;
}

}  // namespace ksync::cuda::detail
