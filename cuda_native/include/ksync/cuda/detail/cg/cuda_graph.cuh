// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::cuda_graph — check_every fused iterations captured once into a CUDA graph (per solver, operator, x,
// batch length, options, the recurrence among them, and grid; recaptured when one changes), launched once per
// batch: one launch per batch instead of two (pipelined: one) per iteration. The host looks between batches,
// as the fused form does.
#pragma once

#include <ksync/cuda/detail/cg/context.cuh>
#include <ksync/cuda/detail/cg/fused.cuh>
#include <ksync/cuda/detail/graph_capture.hpp>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail::cg_forms {

struct cuda_graph : ksync::detail::implements<cg_form::cuda_graph> {
  template <class T, class Operator>
  static void capture(const cg_run<T, Operator>& run, int iterations) {
    cg_buffers<T>& buffers = *run.buffers;
    const ksync::detail::cg_graph_key key{.x = run.x,
                                          .history = run.history,
                                          .tolerance = run.options.tolerance,
                                          .max_iterations = run.options.max_iterations,
                                          .iterations = iterations,
                                          .shape = run.blocks,
                                          .inverse_diagonal = run.inverse_diagonal,
                                          .recurrence = run.options.recurrence};
    if (buffers.graph != nullptr && buffers.captured == key && buffers.captured_operator.holds(run.op)) return;
    destroy_graph(buffers.graph);
    buffers.captured_operator = {};  // nothing captured until the capture below succeeds
    buffers.graph = capture_graph([&](cudaStream_t capture) {
      for (int k = 0; k < iterations; ++k)
        fused::enqueue_iteration(run, capture);
    });
    buffers.captured = key;
    buffers.captured_operator = ksync::detail::captured_value::of(run.op);
  }

  template <class T, class Operator>
  static cg_scalars<T> run(const cg_run<T, Operator>& run) {
    const int iterations = std::min(run.options.check_every, run.options.max_iterations);
    capture(run, iterations);
    enqueue_start(run);
    return run_batches(run, [&] { KSYNC_CUDA_CHECK(cudaGraphLaunch(run.buffers->graph, run.stream)); });
  }
};

}  // namespace ksync::cuda::detail::cg_forms
