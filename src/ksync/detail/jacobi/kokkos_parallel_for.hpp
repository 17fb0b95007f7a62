// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// iteration_form::kokkos_parallel_for — one parallel_for per sweep on `exec`; the instance orders them.
#pragma once

#include <ksync/detail/jacobi/sweep.hpp>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

#include <cstdint>

namespace ksync::detail::jacobi_forms {

struct kokkos_parallel_for : implements<iteration_form::kokkos_parallel_for> {
  template <class ExecutionSpace, class View>
  static void run(const ExecutionSpace& exec, const View& u, const View& scratch, int phases) {
    const auto n = static_cast<std::int64_t>(u.extent(0));
    for (int phase = 0; phase < phases; ++phase)
      Kokkos::parallel_for("ksync::jacobi::sweep", index_policy<ExecutionSpace>(exec, 0, n),
                           sweep_of(u, scratch, phase));
  }
};

}  // namespace ksync::detail::jacobi_forms
