// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The Kokkos kernels of ksync::cg (ksync/cg.hpp), as functors, and the operator concepts. The same steps as
// ksync::cuda::cg's kernels: every kernel past the start reads the state first and leaves every vector
// alone once `done` is set; the scalar steps are the shared ones of ksync/cg_types.hpp.
#pragma once

#include <ksync/cg_classic.hpp>
#include <ksync/cg_types.hpp>
#include <ksync/compat.hpp>
#include <ksync/detail/alternating_pair.hpp>
#include <ksync/detail/index_policy.hpp>
#include <ksync/detail/lanes.hpp>
#include <ksync/stencil.hpp>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <type_traits>

namespace ksync::detail::cg {

// v(j) = view(j).
template <class View>
struct entries {
  View view;
  KOKKOS_FUNCTION typename View::value_type operator()(std::int64_t j) const { return view(j); }
};

// The entries of a raw array, v(j): what the lane loops hand operators (a View per index costs registers).
template <class T>
struct pointer_entries {
  const T* v;
  KOKKOS_FUNCTION T operator()(std::int64_t j) const { return v[j]; }
};

// An operator given by its rows: op(v, i) returns row i of A v, for any v callable as v(j).
template <class Operator, class View>
concept row_operator = requires(const Operator& op, const entries<typename View::const_type>& v, std::int64_t i) {
  { op(v, i) } -> std::convertible_to<typename View::non_const_value_type>;
  { op.extent() } -> std::convertible_to<std::int64_t>;
};

// An operator that applies itself: op.apply(exec, x, y) enqueues y = A x on `exec`.
template <class Operator, class ExecutionSpace, class View>
concept apply_operator =
    requires(const Operator& op, const ExecutionSpace& exec, const typename View::const_type& x, const View& y) {
      op.apply(exec, x, y);
      { op.extent() } -> std::convertible_to<std::int64_t>;
    };

// An operator with a block form for host loops: op.rows(v, first, count, out) writes rows first ...
// first + count - 1 of A v (ksync::poisson_2d).
template <class Operator, class T>
concept block_rows_operator = requires(const Operator& op, const pointer_entries<T>& v, std::int64_t first,
                                       std::int64_t count, T* out) { op.rows(v, first, count, out); };

// Host loops: out[k] = row first + k of A v for k < count, by the operator's block form where it has one
// (op.rows(v, first, count, out): ksync::poisson_2d, whose rows one at a time keep the loop scalar), else row
// by row. out must not overlap the arrays v reads.
template <class T, class Operator, class Vector>
void rows_on_host(const Operator& op, const Vector& v, std::int64_t first, std::int64_t count, T* out) {
  if constexpr (requires { op.rows(v, first, count, out); }) {
    op.rows(v, first, count, out);
  } else {
    for (std::int64_t k = 0; k < count; ++k)
      out[k] = static_cast<T>(op(v, first + k));
  }
}

template <class T, class MemorySpace>
using state_view = Kokkos::View<cg_scalars<T>, MemorySpace>;

// A rank-0 View of one field of the state, where a reduction can land.
template <class T, class MemorySpace>
using scalar_slot = Kokkos::View<T, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// --- start ---

// r = b - A x (rows), p = 0 (the first direction is then r + 0 p = r).
template <class Operator, class View>
struct residual {
  Operator op;
  typename View::const_type b;
  typename View::const_type x;
  View r;
  View p;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    r(i) = b(i) - static_cast<typename View::value_type>(op(entries<typename View::const_type>{x}, i));
    p(i) = 0;
  }
};

// r = b - Ax with Ax already applied (apply operators), p = 0.
template <class View>
struct residual_from_product {
  typename View::const_type b;
  typename View::const_type ax;
  View r;
  View p;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    r(i) = b(i) - ax(i);
    p(i) = 0;
  }
};

template <class T, class MemorySpace>
struct start {
  state_view<T, MemorySpace> state;
  cg_start_step step;
  double* history;
  KOKKOS_FUNCTION void operator()(std::int64_t /*index*/) const { cg_start(state(), step, history); }
};

// --- Jacobi preconditioning (cg_options::preconditioner) ---

// An operator that gives its diagonal: op.diagonal(i) is A(i, i).
template <class Operator>
concept diagonal_operator = requires(const Operator& op, std::int64_t i) { op.diagonal(i); };

// M^-1 = 1 / diag(A), NaN where an entry is unusable (jacobi_inverse, ksync/stencil.hpp).
template <class T, class MemorySpace, class Operator>
struct inverse_diagonal {
  Operator op;
  Kokkos::View<T*, MemorySpace> inverse;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { inverse(i) = jacobi_inverse(static_cast<T>(op.diagonal(i))); }
};

// The terms of v . M^-1 v (weight = M^-1's entries; null: v . v), and of the diagonal's check (cg_refusal).
template <class T>
struct weighted_square {
  const T* v;
  const T* weight;
  KOKKOS_FUNCTION void operator()(std::int64_t i, T& sum) const {
    sum += weight == nullptr ? v[i] * v[i] : v[i] * v[i] * weight[i];
  }
};
template <class T>
struct unusable_entries {
  const T* v;
  KOKKOS_FUNCTION void operator()(std::int64_t i, T& sum) const { sum += v[i] - v[i]; }  // 0, or NaN for NaN and Inf
};

// --- the unfused steps (host_scalars, device_scalars) ---

// Where a step's scalar comes from: the device state (`on_device`) or the launch.
template <class T, class MemorySpace>
struct scalar_from {
  state_view<T, MemorySpace> state;
  bool on_device;
  T value;  // the launch's value (host_scalars)
};

// Each unfused step gives body(s): what it does at index i once the state s was read, a lambda over raw
// pointers. by_index and by_chunk (below) run it; run_step (context.hpp) picks one per backend.

// p = M^-1 r + beta p (M^-1 = I without a preconditioner).
template <class T, class MemorySpace>
struct next_direction {
  state_view<T, MemorySpace> state;
  scalar_from<T, MemorySpace> beta;
  Kokkos::View<const T*, MemorySpace> r;
  Kokkos::View<T*, MemorySpace> p;
  const T* inverse_diagonal;  // null: none
  KOKKOS_FUNCTION auto body(const cg_scalars<T>& s) const {
    const T b = beta.on_device ? s.beta : beta.value;
    return [next = direction_entries<T>{r.data(), p.data(), b, inverse_diagonal}, p_io = p.data()](std::int64_t i) {
      p_io[i] = next(i);
    };
  }
};

// Ap = A p (rows).
template <class T, class MemorySpace, class Operator>
struct apply_rows {
  state_view<T, MemorySpace> state;
  Operator op;
  Kokkos::View<const T*, MemorySpace> p;
  Kokkos::View<T*, MemorySpace> ap;
  KOKKOS_FUNCTION auto body(const cg_scalars<T>& /*s*/) const {
    return [op = op, p_in = entries<Kokkos::View<const T*, MemorySpace>>{p}, ap_out = ap.data()](std::int64_t i) {
      ap_out[i] = static_cast<T>(op(p_in, i));
    };
  }
  // Host backends: a chunk's rows at once (rows_on_host).
  void chunk(std::int64_t first, std::int64_t count) const {
    rows_on_host(op, pointer_entries<T>{p.data()}, first, count, ap.data() + first);
  }
};

// x += alpha p, r -= alpha Ap (alpha = rho / p.Ap from the state, or the launch's).
template <class T, class MemorySpace>
struct update {
  state_view<T, MemorySpace> state;
  scalar_from<T, MemorySpace> alpha;
  Kokkos::View<const T*, MemorySpace> p;
  Kokkos::View<const T*, MemorySpace> ap;
  Kokkos::View<T*, MemorySpace> x;
  Kokkos::View<T*, MemorySpace> r;
  KOKKOS_FUNCTION auto body(const cg_scalars<T>& s) const {
    const T a = alpha.on_device ? s.rho / s.p_ap : alpha.value;
    return [a, p_in = p.data(), ap_in = ap.data(), x_io = x.data(), r_io = r.data()](std::int64_t i) {
      static_cast<void>(cg_classic_update<false>(x_io, r_io, p_in, ap_in, static_cast<const T*>(nullptr), a, i));
    };
  }
};

// GPU backends: one index per work item; the state, read for each index, comes from the cache.
template <class Step>
struct by_index {
  Step step;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    const auto s = step.state();
    if (s.done != 0) return;
    step.body(s)(i);
  }
};

template <class T, class MemorySpace>
struct advance {
  state_view<T, MemorySpace> state;
  double tolerance;
  int max_iterations;
  double* history;
  bool pipelined = false;  // cg_advance_pipelined
  KOKKOS_FUNCTION void operator()(std::int64_t /*index*/) const {
    cg_scalars<T>& s = state();
    if (s.done != 0) return;
    if (pipelined) {
      cg_advance_pipelined(s, tolerance, max_iterations, history);
    } else {
      cg_advance(s, tolerance, max_iterations, history);
    }
  }
};

// --- the fused steps (fused, kokkos_graph): two reductions and the scalar step per iteration ---

// Host backends: one contiguous chunk per work item (split_for_host); the state is read once a chunk, so the
// loop over the chunk vectorizes (read per index, it is reloaded after every store: the stores may alias it).
// A step with a chunk(first, count) of its own (apply_rows) runs that instead.
template <class Step>
struct by_chunk {
  Step step;
  lane_split split;
  KOKKOS_FUNCTION void operator()(std::int64_t lane) const {
    const auto s = step.state();
    if (s.done != 0) return;
    if constexpr (requires { step.chunk(lane, lane); }) {
      const std::int64_t first = lane * split.chunk;
      KOKKOS_IF_ON_HOST((step.chunk(first, split.chunk_end(lane) - first);))
    } else {
      split.for_each(lane, step.body(s));
    }
  }
};

// The fused steps' vectors, as the native half's cg_vectors (cuda_native/include/ksync/cuda/detail/cg/
// kernels.cuh). The direction is two buffers on GPU backends: p_old = p.current(iteration) is read, its
// neighbours too, while p_new = p.next(iteration) is written; on host backends one (both point to it:
// cg_buffers::one_direction_buffer), which new_direction overwrites in place. Raw pointers, not Views: Views
// selected per index cost registers the loops need.
template <class T>
struct cg_vectors {
  T* x;
  T* r;
  alternating_pair<T> p;
  T* ap;
  const T* inverse_diagonal;  // Jacobi's M^-1; null without a preconditioner
};

// What each fused step holds: the solve's state (a step queued past convergence finds done set and does
// nothing), the vectors and the split of the rows into lanes.
template <class T, class MemorySpace>
struct fused_step {
  state_view<T, MemorySpace> state;
  cg_vectors<T> v;
  lane_split split;
};

// p_new = r + beta p_old, on host backends in a pass of its own (fused.hpp): forming p_new at each of the
// stencil's points, as apply_direction does on GPUs, costs the CPU more arithmetic than a pass over memory.
template <class T, class MemorySpace>
struct new_direction : fused_step<T, MemorySpace> {
  KOKKOS_FUNCTION void operator()(std::int64_t lane) const {
    const cg_scalars<T> s = this->state();
    if (s.done != 0) return;
    const T* const r_in = this->v.r;
    const T* const p_old = this->v.p.current(s.iteration);
    T* const p_new = this->v.p.next(s.iteration);
    const T beta = s.beta;
    if (p_new == p_old) {  // host backends (cg_buffers::one_direction_buffer): one pointer, no overlap test
      if (this->v.inverse_diagonal == nullptr) {
        this->split.for_each(lane, [&](std::int64_t i) { p_new[i] = r_in[i] + beta * p_new[i]; });
      } else {
        const T* const w = this->v.inverse_diagonal;
        this->split.for_each(lane, [&](std::int64_t i) { p_new[i] = r_in[i] * w[i] + beta * p_new[i]; });
      }
    } else if (this->v.inverse_diagonal == nullptr) {
      this->split.for_each(lane, [&](std::int64_t i) { p_new[i] = r_in[i] + beta * p_old[i]; });
    } else {
      const T* const w = this->v.inverse_diagonal;
      this->split.for_each(lane, [&](std::int64_t i) { p_new[i] = r_in[i] * w[i] + beta * p_old[i]; });
    }
  }
};

// Ap = A p_new, summing p_new . Ap. FormsDirection (GPUs): p_new = r + beta p_old is formed in the same pass,
// from p_old and its neighbours, and stored. Otherwise new_direction formed it.
template <class T, class MemorySpace, class Operator, bool FormsDirection>
struct apply_direction : fused_step<T, MemorySpace> {
  Operator op;
  KOKKOS_FUNCTION void operator()(std::int64_t lane, T& sum) const {
    const cg_scalars<T> s = this->state();
    if (s.done != 0) return;
    T* const p_new = this->v.p.next(s.iteration);
    T* const ap_out = this->v.ap;
    if constexpr (FormsDirection) {
      const direction_entries<T> next{this->v.r, this->v.p.current(s.iteration), s.beta, this->v.inverse_diagonal};
      T lane_sum = 0;  // a local, not `sum`: the stores to the vectors could alias Kokkos' accumulator
      this->split.for_each(lane, [&](std::int64_t i) {
        const T p_i = next(i);
        const T ap_i = static_cast<T>(op(next, i));
        p_new[i] = p_i;
        ap_out[i] = ap_i;
        lane_sum += p_i * ap_i;
      });
      sum += lane_sum;
    } else if (this->split.chunk != 0 && block_rows_operator<Operator, T>) {
      // Host backends, an operator with a block form (ksync::poisson_2d): a block's rows at once, whose loop
      // vectorizes, then its terms. Without one (a CSR matrix) a row's loop gathers and stays scalar whatever
      // the blocking, and the block's second sweep cost more than it saved: each row's term is summed as the
      // row is made (fold_lane's chains). 3-D Poisson matrix at m = 100, 2 OpenMP threads: this pass 4.57 ms
      // a call against 4.92 by blocks, where the product alone takes 4.43-4.45
      // (docs/results/2026-12-05-cpu-kernels-9388c6a and -01e6cfc).
      KOKKOS_IF_ON_HOST((sum += by_blocks(lane, p_new, ap_out);))
    } else {
      const pointer_entries<T> p_in{p_new};
      fold_lane(this->split, lane, sum, [&](std::int64_t i) {
        const T ap_i = static_cast<T>(op(p_in, i));
        ap_out[i] = ap_i;
        return p_new[i] * ap_i;
      });
    }
  }

  T by_blocks(std::int64_t lane, const T* p_new, T* ap_out) const {
    T lane_sum = 0;
    this->split.for_each_block(lane, host_block, [&](std::int64_t first, std::int64_t count) {
      rows_on_host(op, pointer_entries<T>{p_new}, first, count, ap_out + first);
      lane_sum += sum_in_chains<T>(first, count, [&](std::int64_t i) { return p_new[i] * ap_out[i]; });
    });
    return lane_sum;
  }
};

// x += alpha p_new, r -= alpha Ap, summing the new r . r (r . M^-1 r with a preconditioner).
template <class T, class MemorySpace>
struct update_residual : fused_step<T, MemorySpace> {
  KOKKOS_FUNCTION void operator()(std::int64_t lane, T& sum) const {
    const cg_scalars<T> s = this->state();
    if (s.done != 0) return;
    const T* const p_new = this->v.p.next(s.iteration);
    const T* const ap_in = this->v.ap;
    T* const x_out = this->v.x;
    T* const r_out = this->v.r;
    const T* const inverse = this->v.inverse_diagonal;
    const T alpha = s.rho / s.p_ap;
    if (inverse == nullptr) {
      fold_lane(this->split, lane, sum, [&](std::int64_t i) {
        return cg_classic_update<false>(x_out, r_out, p_new, ap_in, inverse, alpha, i);
      });
    } else {
      fold_lane(this->split, lane, sum,
                [&](std::int64_t i) { return cg_classic_update<true>(x_out, r_out, p_new, ap_in, inverse, alpha, i); });
    }
  }
};

}  // namespace ksync::detail::cg
