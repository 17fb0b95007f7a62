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
    using memory_space = typename ExecutionSpace::memory_space;
    auto& buffers = *run.buffers;
    enqueue_start(run);
    cg_scalars<T> s = wait_state(run, post_state(run));
    double* history = nullptr;
    if (run.history != nullptr) {  // a restart (first_iteration > 0) keeps the entries before it
      run.host_history->resize(static_cast<std::size_t>(run.options.max_iterations) + 1, 0.0);
      (*run.host_history)[static_cast<std::size_t>(s.iteration)] = cg_relative_residual(s);
      history = run.host_history->data();
    }
    while (s.done == 0) {
      run.run_step("ksync::cg::direction", next_direction<T, memory_space>{buffers.state,
                                                                           {buffers.state, false, s.beta},
                                                                           run.preconditioned_residual(),
                                                                           buffers.p0,
                                                                           run.inverse_diagonal});
      apply(run, buffers.p0);
      s.p_ap = ksync::dot(run.exec, buffers.p0, buffers.ap);
      run.run_step(
          "ksync::cg::update",
          update<T, memory_space>{
              buffers.state, {buffers.state, false, s.rho / s.p_ap}, buffers.p0, buffers.ap, run.x, buffers.r});
      run.residual_sum(s.rho_next);
      cg_advance(s, run.options.tolerance, run.options.max_iterations, history);  // on the host
    }
    if (history != nullptr) run.host_history->resize(static_cast<std::size_t>(s.iteration) + 1);
    return s;
  }

  // Ap = A p: by rows, or by the operator's own apply.
  template <class ExecutionSpace, class T, class Operator>
  static void apply(const cg_run<ExecutionSpace, T, Operator>& run,
                    const Kokkos::View<T*, typename ExecutionSpace::memory_space>& p) {
    using memory_space = typename ExecutionSpace::memory_space;
    auto& buffers = *run.buffers;
    if constexpr (row_operator<Operator, Kokkos::View<T*, memory_space>>) {
      run.run_step("ksync::cg::apply", apply_rows<T, memory_space, Operator>{buffers.state, run.op, p, buffers.ap});
    } else {
      run.op.apply(run.exec, Kokkos::View<const T*, memory_space>(p), buffers.ap);
    }
  }
};

}  // namespace ksync::detail::cg::forms
