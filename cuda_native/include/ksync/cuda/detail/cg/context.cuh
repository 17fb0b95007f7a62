// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What every form of ksync::cuda::cg shares on the host: the work buffers, one solve's arguments, the start,
// the steps of the unfused iteration, the host's looks at the device state, and the result. Private to the
// native half (src/device/cg.cu); each form is one file beside it.
#pragma once

#include <ksync/cg_types.hpp>
#include <ksync/cuda/detail/cg/kernels.cuh>
#include <ksync/cuda/detail/cg/pipelined_kernels.cuh>
#include <ksync/cuda/detail/graph_capture.hpp>
#include <ksync/cuda/device/cg.hpp>
#include <ksync/cuda/device/parallel_reduce.cuh>
#include <ksync/cuda/device/reduce.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/grid/barrier.cuh>  // spin_barrier_state
#include <ksync/cuda/mailbox.hpp>
#include <ksync/cuda/stream.hpp>
#include <ksync/detail/captured_value.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace ksync::cuda::detail {

using ksync::detail::cg_scalars;
static_assert(sizeof(cg_scalars<double>) <= mailbox::capacity, "the CG state must fit one mailbox post");

template <class T>
struct cg_buffers {
  int n = 0;  // unknowns
  int device = 0;
  unsigned int partial_slots = 0;  // 2 x the resident blocks of the device: the persistent kernels use two sets
  device_buffer<T> r, p0, p1, ap, partials;
  device_buffer<T> inverse_diagonal;  // Jacobi's M^-1: allocated by the first preconditioned solve
  // The pipelined recurrence's vectors (ksync/cg_pipelined.hpp): allocated by the first pipelined solve.
  device_buffer<T> w_even, w_odd, z, s, p;
  device_buffer<cg_scalars<T>> state;
  device_buffer<unsigned int> ticket;
  device_buffer<spin_barrier_state> barrier;
  device_buffer<double> history;
  // The cuda_graph form's graph of check_every fused iterations, and what its kernels were captured with.
  cudaGraphExec_t graph = nullptr;
  ksync::detail::cg_graph_key captured;
  ksync::detail::captured_value captured_operator;
  // Recorded on the stream behind the last work a solve enqueued (a solve returns while batches past the
  // converged one are still queued). The next solve's stream waits for it before it touches these buffers:
  // a solve on another stream would otherwise reset the state under those batches, which then iterate.
  std::optional<event> previous_solve_done;

  cg_buffers() = default;
  cg_buffers(const cg_buffers&) = delete;
  cg_buffers& operator=(const cg_buffers&) = delete;
  cg_buffers(cg_buffers&&) = delete;
  cg_buffers& operator=(cg_buffers&&) = delete;
  ~cg_buffers() { destroy_graph(graph); }

  // Allocates the pipelined recurrence's vectors, once.
  void make_pipelined(const char* where) {
    const auto count = static_cast<std::size_t>(n);
    if (w_even.size() == count) return;
    w_even = device_buffer<T>(count, where);
    w_odd = device_buffer<T>(count, where);
    z = device_buffer<T>(count, where);
    s = device_buffer<T>(count, where);
    p = device_buffer<T>(count, where);
  }
};

// One solve: its arguments, checked, and the grid of the step kernels. Operator: cg_kernels::poisson_rows
// or a ksync::cuda::csr_matrix.
template <class T, class Operator>
struct cg_run {
  cudaStream_t stream;
  Operator op;
  const T* b;
  T* x;
  cg_options options;
  cg_tuning tuning;
  cg_buffers<T>* buffers;
  unsigned int blocks;        // of the step kernels: enough for elements_per_thread, at most the partial slots / 2
  double* history;            // device memory; null unless options.record_history
  const T* inverse_diagonal;  // Jacobi's M^-1 (buffers->inverse_diagonal); null without a preconditioner
  // The forms that test on the host (host_scalars) record the history here instead, and finish() keeps it.
  std::vector<double>* host_history;
  int first_iteration = 0;  // where this run's start begins counting (a restart: cg_confirm_on_true_residual)

  [[nodiscard]] bool pipelined() const { return options.recurrence == cg_recurrence::pipelined; }
  [[nodiscard]] cg_kernels::cg_pipelined_vectors<T> pipelined_vectors() const {
    return ksync::detail::pipelined_vectors_of(x, *buffers, inverse_diagonal);
  }

  [[nodiscard]] std::int64_t n() const { return buffers->n; }
  [[nodiscard]] cg_kernels::cg_vectors<T> vectors() const {
    return {.x = x,
            .r = buffers->r.data(),
            .p = {.even = buffers->p0.data(), .odd = buffers->p1.data()},
            .ap = buffers->ap.data(),
            .n = buffers->n,
            .inverse_diagonal = inverse_diagonal};
  }
  [[nodiscard]] cg_scalars<T>* state() const { return buffers->state.data(); }
};

// v . M^-1 v into *result (device memory, asynchronous) or result (a host scalar, blocking), preconditioned.
template <class T, class Operator, class Result>
void weighted_sum(const cg_run<T, Operator>& run, const T* v, Result&& result) {
  parallel_reduce(run.stream, run.n(), cg_kernels::weighted_square<T>{v, run.inverse_diagonal},
                  std::forward<Result>(result), reduce_strategy::last_block);
}

// u . v into *result (device memory, asynchronous) or result (a host scalar, blocking).
template <class T, class Operator, class Result>
void dot_into(const cg_run<T, Operator>& run, const T* u, const T* v, Result&& result) {
  const auto n = static_cast<std::size_t>(run.n());
  if constexpr (std::is_pointer_v<std::remove_cvref_t<Result>>) {
    dot(run.stream, u, v, n, reduce_strategy::last_block, result);
  } else {
    result = dot(run.stream, u, v, n, reduce_strategy::last_block);
  }
}

// The unfused iteration that host_scalars and device_scalars both run, one pass per vector operation, in two
// steps that each end in a sum: into *result (the state, asynchronous: device_scalars) or result (a host
// scalar, blocking: host_scalars). Each step's scalar comes from the state or from the host (scalar_source).
// direction_step: p = M^-1 r + beta p, Ap = A p, then p . Ap.
template <class T, class Operator, class Result>
void direction_step(const cg_run<T, Operator>& run, cg_kernels::scalar_source<T> beta, Result&& p_ap) {
  T* p = run.buffers->p0.data();
  T* ap = run.buffers->ap.data();
  cg_kernels::direction_kernel<T><<<run.blocks, cg_kernels::block_size, 0, run.stream>>>(
      run.state(), beta, run.buffers->r.data(), p, run.buffers->n, run.inverse_diagonal);
  KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg direction_kernel");
  cg_kernels::apply_kernel<T>
      <<<run.blocks, cg_kernels::block_size, 0, run.stream>>>(run.state(), run.op, p, ap, run.buffers->n);
  KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg apply_kernel");
  dot_into(run, static_cast<const T*>(p), static_cast<const T*>(ap), std::forward<Result>(p_ap));
}

// update_step: x += alpha p, r -= alpha Ap, then r . M^-1 r (r . r without a preconditioner).
template <class T, class Operator, class Result>
void update_step(const cg_run<T, Operator>& run, cg_kernels::scalar_source<T> alpha, Result&& rho_next) {
  const T* r = run.buffers->r.data();
  cg_kernels::update_kernel<T><<<run.blocks, cg_kernels::block_size, 0, run.stream>>>(
      run.state(), alpha, run.buffers->p0.data(), run.buffers->ap.data(), run.x, run.buffers->r.data(), run.buffers->n);
  KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg update_kernel");
  if (run.inverse_diagonal == nullptr) {
    dot_into(run, r, r, std::forward<Result>(rho_next));
  } else {
    weighted_sum(run, r, std::forward<Result>(rho_next));
  }
}

// r = b - A x, p = 0 (every form's first direction is then r + 0 p = r), rho = r.r, ||b||, and the first
// test (with Jacobi: M^-1 first, and the sums in its norm; pipelined: also w = A M^-1 r and w . M^-1 r):
// enqueued, nothing waited for.
template <class T, class Operator>
void enqueue_start(const cg_run<T, Operator>& run) {
  const auto n = static_cast<std::size_t>(run.n());
  if (run.inverse_diagonal != nullptr) {
    cg_kernels::inverse_diagonal_kernel<T><<<run.blocks, cg_kernels::block_size, 0, run.stream>>>(
        run.op, run.buffers->inverse_diagonal.data(), run.buffers->n);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg inverse_diagonal_kernel");
  }
  cg_kernels::residual_kernel<T><<<run.blocks, cg_kernels::block_size, 0, run.stream>>>(
      run.op, run.b, run.x, run.buffers->r.data(), run.buffers->p0.data(), run.buffers->n);
  KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg residual_kernel");
  if (run.inverse_diagonal == nullptr) {
    dot(run.stream, run.buffers->r.data(), run.buffers->r.data(), n, reduce_strategy::last_block, &run.state()->rho);
    dot(run.stream, run.b, run.b, n, reduce_strategy::last_block, &run.state()->rho_next);
  } else {
    weighted_sum(run, static_cast<const T*>(run.buffers->r.data()), &run.state()->rho);
    weighted_sum(run, run.b, &run.state()->rho_next);
    parallel_reduce(run.stream, run.n(), cg_kernels::unusable_entries<T>{run.inverse_diagonal}, &run.state()->p_ap,
                    reduce_strategy::last_block);
  }
  if (run.pipelined()) {
    cg_kernels::pipelined_start_kernel<T><<<run.blocks, cg_kernels::block_size, 0, run.stream>>>(
        run.state(), run.op, run.pipelined_vectors(), run.buffers->n, run.first_iteration, run.buffers->partials.data(),
        run.buffers->ticket.data());
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg pipelined_start_kernel");
  }
  const ksync::detail::cg_start_step step{.tolerance = run.options.tolerance,
                                          .max_iterations = run.options.max_iterations,
                                          .first_iteration = run.first_iteration,
                                          .preconditioned = run.inverse_diagonal != nullptr,
                                          .pipelined = run.pipelined()};
  cg_kernels::start_kernel<T><<<1, 1, 0, run.stream>>>(run.state(), step, run.history);
  KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg start_kernel");
}

// The host's look at the device state: a post now, a wait later (ksync/cuda/mailbox.hpp).
template <class T, class Operator>
mailbox::ticket post_state(const cg_run<T, Operator>& run) {
  return mailbox::post(run.stream, run.state(), sizeof(cg_scalars<T>));
}
template <class T, class Operator>
cg_scalars<T> wait_state(const cg_run<T, Operator>& run, mailbox::ticket ticket) {
  cg_scalars<T> s;
  mailbox::wait(run.stream, ticket, &s, sizeof(s));
  return s;
}

// The forms whose scalars stay on the device: check_every iterations per batch, the host looking one batch
// behind through the mailbox (ksync::detail::cg_look_one_batch_behind).
template <class T, class Operator, class EnqueueBatch>
cg_scalars<T> run_batches(const cg_run<T, Operator>& run, EnqueueBatch&& enqueue_batch) {
  return ksync::detail::cg_look_one_batch_behind(
      std::min(run.options.check_every, run.options.max_iterations), run.options.max_iterations, enqueue_batch,
      [&] { return post_state(run); }, [&](mailbox::ticket ticket) { return wait_state(run, ticket); });
}

// The result from the final state; x = 0 when b = 0 (the exact solution, whatever the guess was).
template <class T, class Operator>
cg_result finish(const cg_run<T, Operator>& run, const cg_scalars<T>& s) {
  ksync::detail::check_cg_refusal("ksync::cuda::cg", s);  // NaN or Inf in b or x: x left as it was
  cg_result result = ksync::detail::cg_result_of(s);
  if (s.b_norm == 0)
    KSYNC_CUDA_CHECK(cudaMemsetAsync(run.x, 0, static_cast<std::size_t>(run.n()) * sizeof(T), run.stream));
  if (run.history != nullptr && run.host_history->empty()) {
    result.residual_history.resize(static_cast<std::size_t>(s.iteration) + 1);
    KSYNC_CUDA_CHECK(cudaMemcpyAsync(result.residual_history.data(), run.history,
                                     result.residual_history.size() * sizeof(double), cudaMemcpyDeviceToHost,
                                     run.stream));
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(run.stream));  // the history is a bulk copy, once per solve
  }
  if (run.history != nullptr && !run.host_history->empty()) result.residual_history = std::move(*run.host_history);
  return result;
}

}  // namespace ksync::cuda::detail
