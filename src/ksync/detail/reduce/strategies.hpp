// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The portable reduction strategies, one file each in this folder, and the one table that maps
// ksync::reduce_strategy to them. Complete at compile time: every strategy that is neither native nor
// automatic has exactly one row (static_assert below); `automatic` is resolved to a row by portable_choice(),
// in the open. Native strategies never reach this table: ksync::reduce hands them to the bridge, or refuses
// them where there is none (reduce.hpp).
//
// Adding a strategy: one file here (a struct with `id` and `run`, as kokkos.hpp), its enumerator in
// ksync/types.hpp, and its row below.
#pragma once

#include <ksync/detail/fold.hpp>
#include <ksync/detail/reduce/kokkos.hpp>
#include <ksync/detail/reduce/team.hpp>
#include <ksync/detail/reduce/tuned.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ksync::detail {

template <class... Strategies>
struct portable_strategy_table {
  static constexpr int rows_for(reduce_strategy strategy) { return ((Strategies::id == strategy ? 1 : 0) + ...); }
  static constexpr bool rows_are_portable() {
    return ((reduce_strategy_rows[static_cast<int>(Strategies::id)].half == strategy_half::portable) && ...);
  }

  // Calls body.template operator()<Strategy>() for the row of `strategy`.
  template <class Body>
  static void dispatch(reduce_strategy strategy, Body&& body) {
    const bool found = ((Strategies::id == strategy ? (body.template operator()<Strategies>(), true) : false) || ...);
    if (!found)  // not reached: check_portable_strategy and the bridge leave only strategies with a row
      throw std::logic_error("ksync::reduce: no portable row for strategy " + std::string(to_string(strategy)));
  }
};

using portable_reduce_strategies =
    portable_strategy_table<reduce_strategies::kokkos, reduce_strategies::team, reduce_strategies::tuned>;

constexpr bool portable_table_is_complete() {
  if (!portable_reduce_strategies::rows_are_portable()) return false;  // a row types.hpp does not call portable
  for (const auto strategy : all_reduce_strategies) {
    const bool portable = !is_native(strategy) && strategy != reduce_strategy::automatic;
    if (portable_reduce_strategies::rows_for(strategy) != (portable ? 1 : 0)) return false;
  }
  return true;
}
static_assert(portable_table_is_complete(),
              "portable_reduce_strategies must have exactly one row per portable reduce_strategy and none for "
              "native ones or automatic: add the strategy's file and its row together");

// The row `automatic` runs: tuned, the fastest portable strategy measured on every backend.
constexpr reduce_strategy portable_choice(reduce_strategy strategy) {
  return strategy == reduce_strategy::automatic ? reduce_strategy::tuned : strategy;
}

// Folds term(0 .. n-1) by the portable `strategy` (or automatic) into `target` (a rank-0 View:
// asynchronous; a host scalar: blocking). `label` names the kernel ("ksync::<module>::<op>").
template <reduce_op Op, class Acc, class ExecutionSpace, class Term, class Target>
void fold(const char* label, const ExecutionSpace& exec, std::int64_t n, const Term& term, reduce_strategy strategy,
          Target& target) {
  const auto reducer = make_reducer<Op, Acc>(target);
  portable_reduce_strategies::dispatch(portable_choice(strategy), [&]<class Strategy>() {
    Strategy::template run<Op, Acc>(label, exec, n, term, reducer);
  });
}

}  // namespace ksync::detail
