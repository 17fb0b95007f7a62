// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The portable reduction strategies, one file each in this folder, and the one table that maps
// ksync::reduce_strategy to them. Complete at compile time: every strategy that is neither native nor
// automatic has exactly one row (strategy_table checks it); `automatic` is resolved in the open: to last_block
// by resolve_automatic() where the bridge runs it (reduce.hpp), to a row here by portable_choice(). Native
// strategies never reach this table: ksync::reduce hands them to the bridge, or refuses them where there is
// none (reduce.hpp).
//
// Adding a strategy: one file here (a struct deriving from implements<id>, with `run`, as kokkos.hpp), its
// enumerator and row in ksync/types.hpp, and its row below.
#pragma once

#include <ksync/detail/reduce/kokkos.hpp>
#include <ksync/detail/reduce/team.hpp>
#include <ksync/detail/reduce/tuned.hpp>
#include <ksync/detail/reduction.hpp>
#include <ksync/detail/strategy_table.hpp>

#include <cstdint>

namespace ksync::detail {

using portable_reduce_strategies = strategy_table<strategy_half::portable, reduce_strategies::kokkos,
                                                  reduce_strategies::team, reduce_strategies::tuned>;

// The row `automatic` runs among these: tuned, the fastest portable strategy measured on every backend (on
// Kokkos::Cuda with the native half ksync::reduce sends `automatic` to last_block first: resolve_automatic).
constexpr reduce_strategy portable_choice(reduce_strategy strategy) {
  return strategy == reduce_strategy::automatic ? reduce_strategy::tuned : strategy;
}

// Folds term(0 .. n-1) by the portable `strategy` (or automatic) into `target` (a rank-0 View:
// asynchronous; a host scalar: blocking). `label` names the kernel ("ksync::<module>::<op>").
template <reduce_op Op, class Acc, class ExecutionSpace, class Term, class Target>
void fold(const char* label, const ExecutionSpace& exec, std::int64_t n, const Term& term, reduce_strategy strategy,
          Target& target) {
  const auto reducer = make_reducer<Op, Acc>(target);
  portable_reduce_strategies::dispatch("ksync::reduce", portable_choice(strategy), [&]<class Strategy>() {
    Strategy::template run<Op, Acc>(label, exec, n, term, reducer);
  });
}

}  // namespace ksync::detail
