// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// index_strategy::kokkos — what Kokkos code writes: the user's functor itself over RangePolicy(0, n), one
// index per work item. The baseline the other strategies are measured against.
#pragma once

#include <ksync/detail/strategy_table.hpp>
#include <ksync/index_strategy.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <utility>

namespace ksync::detail::index_strategies {

struct kokkos : implements<index_strategy::kokkos> {
  template <class ExecutionSpace, class Index, class F>
  static void run_for(const std::string& label, const ExecutionSpace& exec, Index n, const F& f) {
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(exec, 0, n), f);
  }
  // `result`: what Kokkos::parallel_reduce takes (a host scalar, a View, a reducer); Acc is its value type.
  template <class Acc, class ExecutionSpace, class Index, class F, class Result>
  static void run_reduce(const std::string& label, const ExecutionSpace& exec, Index n, const F& f, Result&& result) {
    Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(exec, 0, n), f,
                            std::forward<Result>(result));
  }
};

}  // namespace ksync::detail::index_strategies
