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
    using namespace cg_kernels;
    enqueue_start(run);
    const auto n = static_cast<std::size_t>(run.n());
    cg_scalars<T>* state = run.state();
    T* p = run.buffers->p0.data();
    T* r = run.buffers->r.data();
    T* ap = run.buffers->ap.data();
    const auto iterate = [&] {
      direction_kernel<T><<<run.blocks, block_size, 0, run.stream>>>(state, {&state->beta, nullptr, 0}, r, p,
                                                                     static_cast<int>(n), run.inverse_diagonal);
      KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg direction_kernel");
      apply_kernel<T><<<run.blocks, block_size, 0, run.stream>>>(state, run.op, p, ap, static_cast<int>(n));
      KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg apply_kernel");
      dot(run.stream, static_cast<const T*>(p), static_cast<const T*>(ap), n, reduce_strategy::last_block,
          &state->p_ap);
      update_kernel<T><<<run.blocks, block_size, 0, run.stream>>>(state, {&state->rho, &state->p_ap, 0}, p, ap, run.x,
                                                                  r, static_cast<int>(n));
      KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg update_kernel");
      if (run.inverse_diagonal == nullptr) {
        dot(run.stream, static_cast<const T*>(r), static_cast<const T*>(r), n, reduce_strategy::last_block,
            &state->rho_next);
      } else {
        weighted_sum(run, static_cast<const T*>(r), &state->rho_next);
      }
      advance_kernel<T><<<1, 1, 0, run.stream>>>(state, run.options.tolerance, run.options.max_iterations, run.history);
      KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg advance_kernel");
    };
    return run_batches(run, [&] {
      for (int k = 0; k < std::min(run.options.check_every, run.options.max_iterations); ++k)
        iterate();
    });
  }
};

}  // namespace ksync::cuda::detail::cg_forms
