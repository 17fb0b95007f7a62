// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::host_scalars — what applications write: both dots come home as blocking reductions (through the
// mailbox, ksync::cuda::dot's blocking form), the host computes alpha and beta and passes them to the next
// launch. Two host round trips per iteration; six launches.
#pragma once

#include <ksync/cuda/detail/cg/context.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail::cg_forms {

struct host_scalars : ksync::detail::implements<cg_form::host_scalars> {
  template <class T, class Operator>
  static cg_scalars<T> run(const cg_run<T, Operator>& run) {
    enqueue_start(run);
    cg_scalars<T> s = wait_state(run, post_state(run));
    if (run.history != nullptr) {  // a restart (first_iteration > 0) keeps the entries before it
      run.host_history->resize(static_cast<std::size_t>(run.options.max_iterations) + 1, 0.0);
      (*run.host_history)[static_cast<std::size_t>(s.iteration)] = ksync::detail::cg_relative_residual(s);
    }
    double* history = run.history != nullptr ? run.host_history->data() : nullptr;
    while (s.done == 0) {
      direction_step(run, {nullptr, nullptr, s.beta}, s.p_ap);
      update_step(run, {nullptr, nullptr, s.rho / s.p_ap}, s.rho_next);
      ksync::detail::cg_advance(s, run.options.tolerance, run.options.max_iterations, history);  // on the host
    }
    if (history != nullptr) run.host_history->resize(static_cast<std::size_t>(s.iteration) + 1);
    return s;
  }
};

}  // namespace ksync::cuda::detail::cg_forms
