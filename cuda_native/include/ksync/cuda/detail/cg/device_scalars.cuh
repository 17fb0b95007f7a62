// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::device_scalars — the host_scalars iteration with every scalar kept on the device: the dots land
// in the state (ksync::cuda::dot, asynchronous), the update kernels form alpha and beta from it, and a
// one-thread kernel takes the scalar step. The host looks every check_every iterations. Six launches per
// iteration, no round trip.
#pragma once

#include <ksync/cuda/detail/cg/context.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail::cg_forms {

struct device_scalars : ksync::detail::implements<cg_form::device_scalars> {
  template <class T, class Operator>
  static cg_scalars<T> run(const cg_run<T, Operator>& run) {
    cg_scalars<T>* state = run.state();
    enqueue_start(run);
    const auto iterate = [&] {
      direction_step(run, {&state->beta, nullptr, 0}, &state->p_ap);
      update_step(run, {&state->rho, &state->p_ap, 0}, &state->rho_next);
      cg_kernels::advance_kernel<T>
          <<<1, 1, 0, run.stream>>>(state, run.options.tolerance, run.options.max_iterations, run.history);
      KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg advance_kernel");
    };
    return run_batches(run, [&] {
      for (int k = 0; k < std::min(run.options.check_every, run.options.max_iterations); ++k)
        iterate();
    });
  }
};

}  // namespace ksync::cuda::detail::cg_forms
