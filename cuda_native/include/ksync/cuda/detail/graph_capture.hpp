// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// capture_graph(enqueue[, instantiate_flags[, priority]]): what `enqueue(stream)` enqueues, captured into an
// executable CUDA graph. The capture runs on a private stream (at `priority`, which the captured kernels keep where
// the graph is instantiated with cudaGraphInstantiateFlagUseNodePriority), so the caller's streams never enter
// capture mode, in relaxed mode, so other threads' CUDA calls stay legal meanwhile. If a step throws, the capture is
// ended and everything it made is released before the exception leaves. Used by the cuda_graph forms (jacobi_graph,
// ksync::cuda::cg) and the peer halo's products, which free what it returns with destroy_graph. Both count in the
// handle ledger (allocation.hpp).
#pragma once

#include <ksync/cuda/allocation.hpp>
#include <ksync/cuda/error.hpp>

#include <cuda_runtime_api.h>

namespace ksync::cuda::detail {

// Destroys an executable graph capture_graph made and sets `executable` to null; null does nothing.
inline void destroy_graph(cudaGraphExec_t& executable) noexcept {
  if (executable == nullptr) return;
  (void)cudaGraphExecDestroy(executable);
  count_handle(handle_kind::graph, -1);
  executable = nullptr;
}

template <class Enqueue>
[[nodiscard]] cudaGraphExec_t capture_graph(Enqueue&& enqueue, unsigned long long instantiate_flags = 0,
                                            int priority = 0) {
  cudaStream_t capture = nullptr;
  KSYNC_CUDA_CHECK(cudaStreamCreateWithPriority(&capture, cudaStreamNonBlocking, priority));
  count_handle(handle_kind::stream, +1);
  const auto destroy_capture_stream = [&] {
    (void)cudaStreamDestroy(capture);
    count_handle(handle_kind::stream, -1);
  };
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t executable = nullptr;
  try {
    KSYNC_CUDA_CHECK(cudaStreamBeginCapture(capture, cudaStreamCaptureModeRelaxed));
    try {
      enqueue(capture);
    } catch (...) {
      (void)cudaStreamEndCapture(capture, &graph);
      throw;
    }
    // Ended in every case, also where a test's injected failure is due here: a stream still capturing is never
    // destroyed.
    const cudaError_t ended = cudaStreamEndCapture(capture, &graph);
    KSYNC_CUDA_CHECK(ended);
    KSYNC_CUDA_CHECK(cudaGraphInstantiate(&executable, graph, instantiate_flags));
    count_handle(handle_kind::graph, +1);
  } catch (...) {
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
    destroy_capture_stream();
    throw;
  }
  (void)cudaGraphDestroy(graph);
  destroy_capture_stream();
  return executable;
}

}  // namespace ksync::cuda::detail
