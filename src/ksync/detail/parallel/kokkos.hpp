// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// index_strategy::kokkos — what Kokkos code writes: the user's functor itself over RangePolicy(0, n), one
// index per work item (the 2-D form: MDRangePolicy over rows x cols, iterating in the order asked for). The
// baseline the other strategies are measured against.
#pragma once

#include <ksync/detail/index_pair.hpp>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/index_strategy.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <utility>

namespace ksync::detail {

// MDRangePolicy over [0, rows) x [0, cols), both its tiles and the indices within a tile iterated in Order.
template <class ExecutionSpace, class Index, iterate Order>
auto pair_policy(const ExecutionSpace& exec, Index rows, Index cols) {
  constexpr Kokkos::Iterate way = Order == iterate::left ? Kokkos::Iterate::Left : Kokkos::Iterate::Right;
  using Policy = Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2, way, way>, Kokkos::IndexType<Index>>;
  return Policy(exec, {0, 0}, {rows, cols});
}

}  // namespace ksync::detail

namespace ksync::detail::index_strategies {

struct kokkos : implements<index_strategy::kokkos> {
  template <class ExecutionSpace, class Index, class F>
  static void run_for(const std::string& label, const ExecutionSpace& exec, Index n, const F& f) {
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(exec, 0, n), f);
  }
  template <class ExecutionSpace, class Index, class F>
  static void run_for_pairs(const std::string& label, const ExecutionSpace& exec, Index rows, Index cols, iterate order,
                            const F& f) {
    with_iterate(order, [&]<iterate Order>() {
      Kokkos::parallel_for(label, pair_policy<ExecutionSpace, Index, Order>(exec, rows, cols), f);
    });
  }
  template <class Acc, class ExecutionSpace, class Index, class F, class Result>
  static void run_reduce_pairs(const std::string& label, const ExecutionSpace& exec, Index rows, Index cols,
                               iterate order, const F& f, Result&& result) {
    with_iterate(order, [&]<iterate Order>() {
      Kokkos::parallel_reduce(label, pair_policy<ExecutionSpace, Index, Order>(exec, rows, cols), f,
                              std::forward<Result>(result));
    });
  }
  // `result`: what Kokkos::parallel_reduce takes (a host scalar, a View, a reducer); Acc is its value type.
  template <class Acc, class ExecutionSpace, class Index, class F, class Result>
  static void run_reduce(const std::string& label, const ExecutionSpace& exec, Index n, const F& f, Result&& result) {
    Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(exec, 0, n), f,
                            std::forward<Result>(result));
  }
};

}  // namespace ksync::detail::index_strategies
