// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::host_scalars — what applications write: both dots come home as blocking ksync::dot calls (on
// Kokkos::Cuda through the mailbox, elsewhere with a fence), the host forms alpha and beta and passes them to
// the next kernels. Two round trips per iteration.
#pragma once

#include <ksync/detail/cg/context.hpp>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::detail::cg::forms {

struct host_scalars : implements<cg_form::host_scalars> {
  template <class ExecutionSpace, class T, class Operator>
  static cg_scalars<T> run(const cg_run<ExecutionSpace, T, Operator>& run) {
    enqueue_start(run);
    cg_scalars<T> s = wait_state(run, post_state(run));
    double* history = nullptr;
    if (run.history != nullptr) {  // a restart (first_iteration > 0) keeps the entries before it
      run.host_history->resize(static_cast<std::size_t>(run.options.max_iterations) + 1, 0.0);
      (*run.host_history)[static_cast<std::size_t>(s.iteration)] = cg_relative_residual(s);
      history = run.host_history->data();
    }
    while (s.done == 0) {
      run.direction_step(run.from_host(s.beta), s.p_ap);
      run.update_step(run.from_host(s.rho / s.p_ap), s.rho_next);
      cg_advance(s, run.options.tolerance, run.options.max_iterations, history);  // on the host
    }
    if (history != nullptr) run.host_history->resize(static_cast<std::size_t>(s.iteration) + 1);
    return s;
  }
};

}  // namespace ksync::detail::cg::forms
