// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What every portable form of ksync::cg shares: the work buffers (Views), one solve's arguments, the start,
// the steps of the unfused iteration, the host's looks at the state, the batch loop and the result. Each form is one
// file beside this one. The names are those of the native half's cuda_native/include/ksync/cuda/detail/cg/context.cuh.
#pragma once

#include <ksync/detail/captured_value.hpp>
#include <ksync/detail/cg/kernels.hpp>
#include <ksync/detail/cg/pipelined_kernels.hpp>
#include <ksync/detail/native_bridge.hpp>
#include <ksync/parallel_reduce.hpp>
#include <ksync/reduce.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace ksync::detail::cg {

template <class ExecutionSpace, class T>
struct cg_buffers {
  using memory_space = typename ExecutionSpace::memory_space;
  using vector = Kokkos::View<T*, memory_space>;
  // Host backends form the fused steps' new direction in a pass of its own (new_direction, kernels.hpp), one
  // index at a time, so it may overwrite the old one in place; GPUs form it where A reads its neighbours, from
  // the old one, which must stay whole meanwhile. In place, the pass streams through one buffer fewer: 323
  // against 480 µs a call for the 3-D Poisson matrix at m = 100 on two OpenMP threads
  // (docs/results/2026-12-05-cpu-kernels-01e6cfc and -9388c6a).
  static constexpr bool one_direction_buffer = runs_on_host<ExecutionSpace>;
  vector r, p0, p1, ap;     // p0, p1: the fused steps' direction, in turn (cg_run::vectors); one View on host backends
  vector inverse_diagonal;  // Jacobi's M^-1: allocated by the first preconditioned solve
  // The pipelined recurrence's vectors (ksync/cg_pipelined.hpp): allocated by the first pipelined solve. z is
  // also M^-1 r of a preconditioner of yours (make_z).
  vector w_even, w_odd, z, s, p;
  state_view<T, memory_space> state;
  Kokkos::View<double*, memory_space> history;
  // Where the posted states land where there is no mailbox (host backends, Kokkos without ksync's native
  // half): two slots, used in turn.
  Kokkos::View<cg_scalars<T>[2], Kokkos::HostSpace> host_slots;
  int next_host_slot = 0;
  // The kokkos_graph form's graph of check_every fused iterations and what it was built with: the key's
  // pointers and options, and the operator its nodes hold by value.
  std::optional<Kokkos::Experimental::Graph<ExecutionSpace>> graph;
  cg_graph_key built;
  captured_value built_operator;
  // The instance of the last solve: a solve returns while batches past the converged one are still queued
  // there, and they read the state the next solve resets.
  std::optional<ExecutionSpace> last_instance;

  cg_buffers(const ExecutionSpace& exec, std::int64_t n)
      : r(Kokkos::view_alloc(exec, "ksync::cg::r"), n),
        p0(Kokkos::view_alloc(exec, "ksync::cg::p0"), n),
        p1(one_direction_buffer ? p0 : vector(Kokkos::view_alloc(exec, "ksync::cg::p1"), n)),
        ap(Kokkos::view_alloc(exec, "ksync::cg::ap"), n),
        state(Kokkos::view_alloc(exec, "ksync::cg::state")),
        host_slots("ksync::cg::looks") {}

  // Allocates z on exec, once.
  void make_z(const ExecutionSpace& exec) {
    if (z.extent(0) != r.extent(0)) z = vector(Kokkos::view_alloc(exec, "ksync::cg::z"), r.extent(0));
  }
  // Allocates the pipelined recurrence's vectors on exec, once.
  void make_pipelined(const ExecutionSpace& exec) {
    const auto n = r.extent(0);
    make_z(exec);
    if (w_even.extent(0) == n) return;
    w_even = vector(Kokkos::view_alloc(exec, "ksync::cg::w_even"), n);
    w_odd = vector(Kokkos::view_alloc(exec, "ksync::cg::w_odd"), n);
    s = vector(Kokkos::view_alloc(exec, "ksync::cg::s"), n);
    p = vector(Kokkos::view_alloc(exec, "ksync::cg::p"), n);
  }
};

// Before a solve on `exec`: the batches the last solve left queued on another instance run first.
template <class ExecutionSpace, class T>
void order_behind_last_solve(cg_buffers<ExecutionSpace, T>& buffers, const ExecutionSpace& exec) {
  if (buffers.last_instance && buffers.last_instance->impl_instance_id() != exec.impl_instance_id())
    buffers.last_instance->fence("ksync::cg::previous_solve");
  buffers.last_instance = exec;
}

// One solve.
template <class ExecutionSpace, class T, class Operator>
struct cg_run {
  using memory_space = typename ExecutionSpace::memory_space;
  using vector = Kokkos::View<T*, memory_space>;
  using const_vector = Kokkos::View<const T*, memory_space>;
  ExecutionSpace exec;
  Operator op;
  const_vector b;
  vector x;
  cg_options options;
  cg_buffers<ExecutionSpace, T>* buffers;
  double* history;                    // device-side history, null unless options.record_history
  std::vector<double>* host_history;  // forms that test on the host record here instead
  const T* inverse_diagonal;          // Jacobi's M^-1 (buffers->inverse_diagonal), null without a preconditioner
  int first_iteration = 0;            // where this run's start begins counting (a restart: cg_confirm_on_true_residual)
  // A preconditioner of yours: precondition(v, z) enqueues z = M^-1 v on exec (z is buffers->z); empty without
  // one. host_scalars and device_scalars run it (ksync/cg.hpp).
  std::function<void(const const_vector&, const vector&)> precondition;

  [[nodiscard]] bool user_preconditioned() const { return static_cast<bool>(precondition); }
  // What the next direction is formed from: z = M^-1 r with a preconditioner of yours, else r (Jacobi's M^-1
  // is applied on the fly, by next_direction).
  [[nodiscard]] const vector& preconditioned_residual() const {
    return user_preconditioned() ? buffers->z : buffers->r;
  }
  // The residual's sum after an update (r . M^-1 r; r . r without a preconditioner) into `result`: a rank-0
  // View (asynchronous) or a host scalar (blocking). With a preconditioner of yours, z = M^-1 r first.
  template <class Result>
  void residual_sum(Result&& result) const {
    if (user_preconditioned()) {
      precondition(buffers->r, buffers->z);
      dot(buffers->r, buffers->z, std::forward<Result>(result));
    } else if (inverse_diagonal == nullptr) {
      dot(buffers->r, buffers->r, std::forward<Result>(result));
    } else {
      weighted_sum(buffers->r.data(), std::forward<Result>(result));
    }
  }
  // u . v into a rank-0 View (asynchronous) or a host scalar (blocking).
  template <class U, class V, class Result>
  void dot(const U& u, const V& v, Result&& result) const {
    if constexpr (Kokkos::is_view_v<std::remove_cvref_t<Result>>) {
      ksync::dot(exec, u, v, reduce_strategy::automatic, result);
    } else {
      result = ksync::dot(exec, u, v);
    }
  }

  // The unfused iteration that host_scalars and device_scalars both run, one pass per vector operation, in two
  // steps that each end in a sum: into a rank-0 View (the state, asynchronous: device_scalars) or a host scalar
  // (blocking: host_scalars). Each step's scalar comes from the state or from the host (from_state,
  // from_host). The names are those of context.cuh's.
  // direction_step: p = M^-1 r + beta p (preconditioned_residual), Ap = A p, then p . Ap.
  template <class Result>
  void direction_step(const scalar_from<T, memory_space>& beta, Result&& p_ap) const {
    run_step("ksync::cg::direction", next_direction<T, memory_space>{buffers->state, beta, preconditioned_residual(),
                                                                     buffers->p0, inverse_diagonal});
    apply(buffers->p0);
    dot(buffers->p0, buffers->ap, std::forward<Result>(p_ap));
  }
  // update_step: x += alpha p, r -= alpha Ap, then residual_sum.
  template <class Result>
  void update_step(const scalar_from<T, memory_space>& alpha, Result&& rho_next) const {
    run_step("ksync::cg::update",
             update<T, memory_space>{buffers->state, alpha, buffers->p0, buffers->ap, x, buffers->r});
    residual_sum(std::forward<Result>(rho_next));
  }
  // Where a step reads alpha or beta (kernels.hpp: scalar_from): the state, or the value the host passes.
  [[nodiscard]] scalar_from<T, memory_space> from_state() const { return {buffers->state, true, T(0)}; }
  [[nodiscard]] scalar_from<T, memory_space> from_host(T value) const { return {buffers->state, false, value}; }
  // buffers->ap = A p: by rows, or by the operator's own apply.
  void apply(const vector& p) const {
    if constexpr (row_operator<Operator, vector>) {
      run_step("ksync::cg::apply", apply_rows<T, memory_space, Operator>{buffers->state, op, p, buffers->ap});
    } else {
      op.apply(exec, const_vector(p), buffers->ap);
    }
  }

  [[nodiscard]] bool pipelined() const { return options.recurrence == cg_recurrence::pipelined; }
  [[nodiscard]] cg_pipelined_vectors<T> pipelined_vectors() const {
    return pipelined_vectors_of(x.data(), *buffers, inverse_diagonal);
  }
  // The fused steps' vectors (kernels.hpp).
  [[nodiscard]] cg_vectors<T> vectors() const {
    return {.x = x.data(),
            .r = buffers->r.data(),
            .p = {.even = buffers->p0.data(), .odd = buffers->p1.data()},
            .ap = buffers->ap.data(),
            .inverse_diagonal = inverse_diagonal};
  }
  [[nodiscard]] std::int64_t n() const { return static_cast<std::int64_t>(x.extent(0)); }
  [[nodiscard]] index_policy<ExecutionSpace> all() const { return index_policy<ExecutionSpace>(exec, 0, n()); }
  [[nodiscard]] index_policy<ExecutionSpace> one() const { return index_policy<ExecutionSpace>(exec, 0, 1); }
  [[nodiscard]] scalar_slot<T, memory_space> slot(T cg_scalars<T>::* field) const {
    return scalar_slot<T, memory_space>(&(buffers->state.data()->*field));
  }
  [[nodiscard]] int per_batch() const { return std::min(options.check_every, options.max_iterations); }

  // v . M^-1 v (v . v without a preconditioner) into `result`: a rank-0 View (asynchronous) or a host scalar
  // (blocking).
  template <class Result>
  void weighted_sum(const T* v, Result&& result) const {
    ksync::parallel_reduce("ksync::cg::dot", exec, n(), weighted_square<T>{v, inverse_diagonal},
                           std::forward<Result>(result));
  }

  // The scalar step of an iteration (kernels.hpp: advance, start; one index). On host backends the calling
  // thread runs it once exec has run what came before (a host instance's fence waits for no more than the
  // kernels just run): a one-index kernel there is a whole parallel region, whose fork and join cost about a
  // fifth of an iteration at m = 64 on 2 OpenMP threads. On GPU backends a one-index kernel, in stream order.
  template <class Step>
  void scalar_step(const char* label, const Step& step) const {
    if constexpr (runs_on_host<ExecutionSpace>) {
      exec.fence(label);
      step(std::int64_t{0});
    } else {
      Kokkos::parallel_for(label, one(), step);
    }
  }

  // Enqueues an unfused step (kernels.hpp: next_direction, apply_rows, update) over [0, n): one index per
  // work item on GPU backends, one contiguous chunk per work item on host backends.
  template <class Step>
  void run_step(const char* label, const Step& step) const {
    if constexpr (runs_on_host<ExecutionSpace>) {
      const auto [lanes, chunk] = split_for_host(exec, n());
      Kokkos::parallel_for(label, index_policy<ExecutionSpace>(exec, 0, lanes),
                           by_chunk<Step>{step, {.n = n(), .lanes = lanes, .chunk = chunk}});
    } else {
      Kokkos::parallel_for(label, all(), by_index<Step>{step});
    }
  }
};

// r = b - A x, p = 0, rho = r.r, ||b|| and the first test (with Jacobi: M^-1 first, and the sums in its
// norm; with a preconditioner of yours: z = M^-1 r, and the sums in its norm; pipelined: also w = A M^-1 r and
// w . M^-1 r): enqueued on exec, nothing waited for.
template <class ExecutionSpace, class T, class Operator>
void enqueue_start(const cg_run<ExecutionSpace, T, Operator>& run) {
  auto& buffers = *run.buffers;
  if constexpr (diagonal_operator<Operator>) {
    if (run.inverse_diagonal != nullptr)
      Kokkos::parallel_for(
          "ksync::cg::inverse_diagonal", run.all(),
          inverse_diagonal<T, typename ExecutionSpace::memory_space, Operator>{run.op, buffers.inverse_diagonal});
  }
  if constexpr (row_operator<Operator, typename cg_run<ExecutionSpace, T, Operator>::vector>) {
    Kokkos::parallel_for("ksync::cg::start", run.all(),
                         residual<Operator, typename cg_buffers<ExecutionSpace, T>::vector>{run.op, run.b, run.x,
                                                                                            buffers.r, buffers.p0});
  } else {
    run.op.apply(run.exec, typename cg_buffers<ExecutionSpace, T>::vector::const_type(run.x), buffers.ap);
    Kokkos::parallel_for("ksync::cg::start", run.all(),
                         residual_from_product<typename cg_buffers<ExecutionSpace, T>::vector>{run.b, buffers.ap,
                                                                                               buffers.r, buffers.p0});
  }
  if (run.user_preconditioned()) {  // b . M^-1 b first, then z = M^-1 r, which the first direction is formed from
    run.precondition(run.b, buffers.z);
    run.dot(run.b, buffers.z, run.slot(&cg_scalars<T>::rho_next));
    run.residual_sum(run.slot(&cg_scalars<T>::rho));
  } else if (run.inverse_diagonal == nullptr) {
    ksync::dot(run.exec, buffers.r, buffers.r, reduce_strategy::automatic, run.slot(&cg_scalars<T>::rho));
    ksync::dot(run.exec, run.b, run.b, reduce_strategy::automatic, run.slot(&cg_scalars<T>::rho_next));
  } else {
    run.weighted_sum(buffers.r.data(), run.slot(&cg_scalars<T>::rho));
    run.weighted_sum(run.b.data(), run.slot(&cg_scalars<T>::rho_next));
    ksync::parallel_reduce("ksync::cg::start", run.exec, run.n(), unusable_entries<T>{run.inverse_diagonal},
                           run.slot(&cg_scalars<T>::p_ap));
  }
  if constexpr (row_operator<Operator, typename cg_run<ExecutionSpace, T, Operator>::vector>) {
    if (run.pipelined()) {
      const lane_split split = split_into_lanes(run.exec, run.n());
      Kokkos::parallel_reduce("ksync::cg::pipelined_start", index_policy<ExecutionSpace>(run.exec, 0, split.lanes),
                              pipelined_start<T, typename ExecutionSpace::memory_space, Operator>{
                                  run.op, run.pipelined_vectors(), run.first_iteration, split},
                              run.slot(&cg_scalars<T>::delta));
    }
  }
  const cg_start_step step{.tolerance = run.options.tolerance,
                           .max_iterations = run.options.max_iterations,
                           .first_iteration = run.first_iteration,
                           .preconditioned = run.inverse_diagonal != nullptr,
                           .user_preconditioned = run.user_preconditioned(),
                           .pipelined = run.pipelined()};
  run.scalar_step("ksync::cg::start",
                  start<T, typename ExecutionSpace::memory_space>{buffers.state, step, run.history});
}

// The host's look at the state: post() now, wait() later. On Kokkos::Cuda with ksync's native half the
// state comes home through the stream's mailbox (ksync/cuda/mailbox.hpp: the host waits for the
// value, not for a fence); elsewhere a deep copy and a fence of the instance.
struct state_ticket {
  std::uint32_t ticket = 0;  // the mailbox's epoch, or the host slot
};

template <class ExecutionSpace, class T, class Operator>
state_ticket post_state(const cg_run<ExecutionSpace, T, Operator>& run) {
  auto& buffers = *run.buffers;
  if constexpr (has_native_mailbox<ExecutionSpace, T>) {
    return {native_post(run.exec, buffers.state.data(), sizeof(cg_scalars<T>))};
  } else {
    const int slot = buffers.next_host_slot;
    buffers.next_host_slot ^= 1;
    Kokkos::deep_copy(run.exec, Kokkos::subview(buffers.host_slots, slot), buffers.state);
    return {static_cast<std::uint32_t>(slot)};
  }
}

template <class ExecutionSpace, class T, class Operator>
cg_scalars<T> wait_state(const cg_run<ExecutionSpace, T, Operator>& run, state_ticket posted) {
  cg_scalars<T> s;
  if constexpr (has_native_mailbox<ExecutionSpace, T>) {
    native_wait(run.exec, posted.ticket, &s, sizeof(s));
  } else {
    run.exec.fence("ksync::cg::look");
    s = run.buffers->host_slots(posted.ticket);
  }
  return s;
}

// The forms whose scalars stay on the device: check_every iterations per batch, the host looking one batch
// behind (cg_look_one_batch_behind, ksync/cg_types.hpp).
template <class ExecutionSpace, class T, class Operator, class EnqueueBatch>
cg_scalars<T> run_batches(const cg_run<ExecutionSpace, T, Operator>& run, EnqueueBatch&& enqueue_batch) {
  return cg_look_one_batch_behind(
      run.per_batch(), run.options.max_iterations, enqueue_batch, [&] { return post_state(run); },
      [&](state_ticket posted) { return wait_state(run, posted); });
}

// The result; x = 0 when b = 0 (the exact solution, whatever the guess was). Throws std::invalid_argument
// when the start refused b or x (cg_refusal), x left as it was.
template <class ExecutionSpace, class T, class Operator>
cg_result finish(const cg_run<ExecutionSpace, T, Operator>& run, const cg_scalars<T>& s) {
  check_cg_refusal("ksync::cg", s);
  cg_result result = cg_result_of(s);
  if (s.b_norm == 0) Kokkos::deep_copy(run.exec, run.x, T(0));
  if (run.history != nullptr && !run.host_history->empty()) {
    result.residual_history = std::move(*run.host_history);
  } else if (run.history != nullptr) {
    result.residual_history.resize(static_cast<std::size_t>(s.iteration) + 1);
    const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
        result.residual_history.data(), result.residual_history.size());
    Kokkos::deep_copy(run.exec, host,
                      Kokkos::subview(run.buffers->history, std::make_pair(std::size_t{0}, host.size())));
    run.exec.fence("ksync::cg::history");  // a host value: the history, once per solve
  }
  return result;
}

}  // namespace ksync::detail::cg
