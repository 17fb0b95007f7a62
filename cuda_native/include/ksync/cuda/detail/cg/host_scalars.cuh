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
    using namespace cg_kernels;
    enqueue_start(run);
    cg_scalars<T> s = wait_state(run, post_state(run));
    const auto n = static_cast<std::size_t>(run.n());
    T* p = run.buffers->p0.data();
    T* r = run.buffers->r.data();
    T* ap = run.buffers->ap.data();
    if (run.history != nullptr) {  // a restart (first_iteration > 0) keeps the entries before it
      run.host_history->resize(static_cast<std::size_t>(run.options.max_iterations) + 1, 0.0);
      (*run.host_history)[static_cast<std::size_t>(s.iteration)] = ksync::detail::cg_relative_residual(s);
    }
    double* history = run.history != nullptr ? run.host_history->data() : nullptr;
    while (s.done == 0) {
      direction_kernel<T><<<run.blocks, block_size, 0, run.stream>>>(run.state(), {nullptr, nullptr, s.beta}, r, p,
                                                                     static_cast<int>(n), run.inverse_diagonal);
      KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg direction_kernel");
      apply_kernel<T><<<run.blocks, block_size, 0, run.stream>>>(run.state(), run.op, p, ap, static_cast<int>(n));
      KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg apply_kernel");
      s.p_ap = dot(run.stream, static_cast<const T*>(p), static_cast<const T*>(ap), n, reduce_strategy::last_block);
      update_kernel<T><<<run.blocks, block_size, 0, run.stream>>>(run.state(), {nullptr, nullptr, s.rho / s.p_ap}, p,
                                                                  ap, run.x, r, static_cast<int>(n));
      KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg update_kernel");
      if (run.inverse_diagonal == nullptr) {
        s.rho_next =
            dot(run.stream, static_cast<const T*>(r), static_cast<const T*>(r), n, reduce_strategy::last_block);
      } else {
        weighted_sum(run, static_cast<const T*>(r), s.rho_next);
      }
      ksync::detail::cg_advance(s, run.options.tolerance, run.options.max_iterations, history);  // on the host
    }
    if (history != nullptr) run.host_history->resize(static_cast<std::size_t>(s.iteration) + 1);
    return s;
  }
};

}  // namespace ksync::cuda::detail::cg_forms
