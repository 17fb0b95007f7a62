// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::device_scalars — the host_scalars iteration with the scalars kept on the device: the dots land in
// the state (asynchronous ksync::dot into rank-0 Views), the kernels read alpha and beta there, and a
// one-index kernel takes the scalar step. The host looks every check_every iterations.
#pragma once

#include <ksync/detail/cg/context.hpp>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::detail::cg::forms {

struct device_scalars : implements<cg_form::device_scalars> {
  template <class ExecutionSpace, class T, class Operator>
  static cg_scalars<T> run(const cg_run<ExecutionSpace, T, Operator>& run) {
    using memory_space = typename ExecutionSpace::memory_space;
    enqueue_start(run);
    const auto iterate = [&] {
      run.direction_step(run.from_state(), run.slot(&cg_scalars<T>::p_ap));
      run.update_step(run.from_state(), run.slot(&cg_scalars<T>::rho_next));
      run.scalar_step("ksync::cg::advance", advance<T, memory_space>{run.buffers->state, run.options.tolerance,
                                                                     run.options.max_iterations, run.history});
    };
    return run_batches(run, [&] {
      for (int k = 0; k < run.per_batch(); ++k)
        iterate();
    });
  }
};

}  // namespace ksync::detail::cg::forms
