// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::fused — two kernels per iteration (kernels.cuh): the new direction, A p and p.Ap in one pass; the
// x/r update, r.r and the scalar step in the other (the last block to finish takes the step). Ten vector
// passes per iteration against fourteen for the unfused forms, two launches against six. The pipelined
// recurrence: one kernel an iteration (pipelined_pass_kernel), twelve vector passes.
#pragma once

#include <ksync/cuda/detail/cg/context.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail::cg_forms {

struct fused : ksync::detail::implements<cg_form::fused> {
  // One fused iteration on `stream` (the cuda_graph form captures these).
  template <class T, class Operator>
  static void enqueue_iteration(const cg_run<T, Operator>& run, cudaStream_t stream) {
    using namespace cg_kernels;
    T* partials = run.buffers->partials.data();
    unsigned int* ticket = run.buffers->ticket.data();
    if (run.pipelined()) {  // one kernel: the pass, both sums and the scalar step (pipelined_kernels.cuh)
      pipelined_pass_kernel<T><<<run.blocks, block_size, 0, stream>>>(
          run.state(), run.op, run.pipelined_vectors(), run.buffers->n, partials, ticket, run.options.tolerance,
          run.options.max_iterations, run.history);
      KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg pipelined_pass_kernel");
      return;
    }
    const cg_vectors<T> v = run.vectors();
    direction_apply_kernel<T><<<run.blocks, block_size, 0, stream>>>(run.state(), run.op, v, partials, ticket);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg direction_apply_kernel");
    update_residual_kernel<T><<<run.blocks, block_size, 0, stream>>>(
        run.state(), v, partials, ticket, run.options.tolerance, run.options.max_iterations, run.history);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg update_residual_kernel");
  }

  template <class T, class Operator>
  static cg_scalars<T> run(const cg_run<T, Operator>& run) {
    enqueue_start(run);
    return run_batches(run, [&] {
      for (int k = 0; k < std::min(run.options.check_every, run.options.max_iterations); ++k)
        enqueue_iteration(run, run.stream);
    });
  }
};

}  // namespace ksync::cuda::detail::cg_forms
