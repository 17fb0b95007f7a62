// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// jacobi_form::kokkos_parallel_for — one parallel_for per sweep on `exec`; the instance orders them.
#pragma once

#include <ksync/detail/jacobi/sweep.hpp>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

namespace ksync::detail::jacobi_forms {

struct kokkos_parallel_for : implements<jacobi_form::kokkos_parallel_for> {
  template <class ExecutionSpace, class View>
  static void run(const ExecutionSpace& exec, const View& u, const View& scratch, int phases) {
    for_each_sweep(
        exec, u, scratch, phases,
        [&](std::int64_t begin, std::int64_t end) { return index_policy<ExecutionSpace>(exec, begin, end); },
        [&](const char* label, const auto& policy, const auto& sweep) { Kokkos::parallel_for(label, policy, sweep); });
  }
};

}  // namespace ksync::detail::jacobi_forms
