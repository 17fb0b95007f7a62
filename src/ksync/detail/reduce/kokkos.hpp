// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// reduce_strategy::kokkos (portable): Kokkos::parallel_reduce over RangePolicy(0, n), one term per index —
// what Kokkos users write, the baseline the other portable strategies are measured against.
#pragma once

#include <ksync/detail/index_policy.hpp>
#include <ksync/detail/reduction.hpp>
#include <ksync/detail/strategy_table.hpp>

#include <cstdint>

namespace ksync::detail::reduce_strategies {

template <reduce_op Op, class Acc, class Term>
struct RangeFold {
  Term term;
  KOKKOS_FUNCTION void operator()(std::int64_t i, Acc& acc) const { combine<Op>::into(acc, term(i)); }
};

struct kokkos : implements<reduce_strategy::kokkos> {
  template <reduce_op Op, class Acc, class ExecutionSpace, class Term, class Reducer>
  static void run(const char* label, const ExecutionSpace& exec, std::int64_t n, const Term& term,
                  const Reducer& reducer) {
    Kokkos::parallel_reduce(label, index_policy<ExecutionSpace>(exec, 0, n), RangeFold<Op, Acc, Term>{term}, reducer);
  }
};

}  // namespace ksync::detail::reduce_strategies
