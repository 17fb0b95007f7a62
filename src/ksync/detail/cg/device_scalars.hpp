// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::device_scalars — the host_scalars iteration with the scalars kept on the device: the dots land in
// the state (asynchronous ksync::dot into rank-0 Views), the kernels read alpha and beta there, and a
// one-index kernel takes the scalar step. The host looks every check_every iterations.
#pragma once

#include <ksync/detail/cg/context.hpp>
#include <ksync/detail/cg/host_scalars.hpp>  // host_scalars::apply
#include <ksync/detail/strategy_table.hpp>

namespace ksync::detail::cg::forms {

struct device_scalars : implements<cg_form::device_scalars> {
  template <class ExecutionSpace, class T, class Operator>
  static cg_scalars<T> run(const cg_run<ExecutionSpace, T, Operator>& run) {
    using memory_space = typename ExecutionSpace::memory_space;
    auto& buffers = *run.buffers;
    enqueue_start(run);
    const auto iterate = [&] {
      run.run_step("ksync::cg::direction", next_direction<T, memory_space>{buffers.state,
                                                                           {buffers.state, true, T(0)},
                                                                           run.preconditioned_residual(),
                                                                           buffers.p0,
                                                                           run.inverse_diagonal});
      host_scalars::apply(run, buffers.p0);
      ksync::dot(run.exec, buffers.p0, buffers.ap, reduce_strategy::automatic, run.slot(&cg_scalars<T>::p_ap));
      run.run_step("ksync::cg::update",
                   update<T, memory_space>{
                       buffers.state, {buffers.state, true, T(0)}, buffers.p0, buffers.ap, run.x, buffers.r});
      run.residual_sum(run.slot(&cg_scalars<T>::rho_next));
      run.scalar_step("ksync::cg::advance", advance<T, memory_space>{buffers.state, run.options.tolerance,
                                                                     run.options.max_iterations, run.history});
    };
    return run_batches(run, [&] {
      for (int k = 0; k < run.per_batch(); ++k)
        iterate();
    });
  }
};

}  // namespace ksync::detail::cg::forms
