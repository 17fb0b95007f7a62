// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The portable transform strategies, one file each in this folder, and the one table that maps
// ksync::transform_strategy to them. Complete at compile time: every portable strategy has exactly one row
// (strategy_table checks it); `automatic` is resolved by portable_transform_choice(); `native` never reaches the
// table: ksync::transform hands it to the bridge, or refuses it where there is none (transform.hpp).
// Adding a strategy: one file here (a struct deriving from implements<id>, with `run`, as kokkos.hpp), its enumerator
// and row in ksync/types.hpp, and its row below.
#pragma once

#include <ksync/detail/strategy_table.hpp>
#include <ksync/detail/transform/kokkos.hpp>
#include <ksync/detail/transform/tuned.hpp>

namespace ksync::detail {

using portable_transform_strategies =
    strategy_table<strategy_half::portable, transform_strategies::kokkos, transform_strategies::tuned>;

// The row `automatic` runs: tuned, the fastest portable strategy measured on every backend.
constexpr transform_strategy portable_transform_choice(transform_strategy strategy) {
  return strategy == transform_strategy::automatic ? transform_strategy::tuned : strategy;
}

}  // namespace ksync::detail
