// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The pipelined CG recurrence's arithmetic (cg_recurrence::pipelined, ksync/cg_types.hpp), written once for
// both halves' kernels: one row of the start and one row of an iteration's single pass. Ghysels and
// Vanroose's preconditioned pipelined CG (Parallel Computing 40, 2014, algorithm 4) with a diagonal M^-1,
// whose products M^-1 r, M^-1 s and M^-1 w are formed where they are read instead of being stored:
//
//   start      r = b - A x (the classic start), w = A M^-1 r, z = s = p = 0; sums r . M^-1 r and w . M^-1 r
//   iteration  n = A M^-1 w                      (w's neighbours: w alternates between two buffers)
//              z = n + beta z,  s = w + beta s,  p = M^-1 r + beta p
//              x += alpha p,  r -= alpha s,  w -= alpha z
//              sums r . M^-1 r and w . M^-1 r of the new r and w: the next iteration's alpha and beta
//
// so an iteration has one reduction, and a persistent kernel one grid barrier, where classic CG has two.
#pragma once

#include <ksync/detail/alternating_pair.hpp>
#include <ksync/detail/host_device.hpp>

#include <cstdint>
#include <type_traits>

namespace ksync::detail {

// The two sums of a pipelined pass, in the order cg_scalars keeps them (rho_next, then delta).
template <class T>
struct cg_sum_pair {
  T rho = 0;    // r . M^-1 r
  T delta = 0;  // w . M^-1 r
  KSYNC_HOST_DEVICE cg_sum_pair& operator+=(const cg_sum_pair& other) {
    rho += other.rho;
    delta += other.delta;
    return *this;
  }
};

// v(j) scaled by M^-1's entry (Weighted false: v(j) itself): what A reads in the pipelined recurrence.
template <class T, bool Weighted>
struct preconditioned_entries {
  const T* v;
  const T* inverse_diagonal;
  KSYNC_HOST_DEVICE T operator()(std::int64_t j) const {
    if constexpr (Weighted) {
      return v[j] * inverse_diagonal[j];
    } else {
      return v[j];
    }
  }
};

// body(std::true_type{}) where M^-1 is given, body(std::false_type{}) where it is not: the rows below take
// the choice as a template argument, so a loop over them carries no branch per entry (a CPU loop with one
// does not vectorize).
template <class T, class Body>
KSYNC_HOST_DEVICE auto with_preconditioning(const T* inverse_diagonal, const Body& body) {
  if (inverse_diagonal == nullptr) return body(std::false_type{});
  return body(std::true_type{});
}

// The recurrence's vectors as device pointers. w alternates by iteration parity: a pass reads the current w's
// neighbours while it writes the next w.
template <class T>
struct cg_pipelined_vectors {
  T* x;
  T* r;
  alternating_pair<T> w;
  T* z;
  T* s;
  T* p;
  const T* inverse_diagonal;  // Jacobi's M^-1; null without a preconditioner
};

// The vectors over a half's CG buffers (r, w_even, w_odd, z, s, p: Views or device buffers, each with data()).
template <class T, class Buffers>
[[nodiscard]] cg_pipelined_vectors<T> pipelined_vectors_of(T* x, Buffers& buffers, const T* inverse_diagonal) {
  return {.x = x,
          .r = buffers.r.data(),
          .w = {.even = buffers.w_even.data(), .odd = buffers.w_odd.data()},
          .z = buffers.z.data(),
          .s = buffers.s.data(),
          .p = buffers.p.data(),
          .inverse_diagonal = inverse_diagonal};
}

// Row i of the start, after r = b - A x everywhere: w = A M^-1 r into `w` (the buffer of the first
// iteration's parity), z = s = p = 0; returns row i's term of w . M^-1 r.
template <bool Weighted, class T, class Operator, class Index>
KSYNC_HOST_DEVICE T cg_pipelined_start_row(const Operator& op, const cg_pipelined_vectors<T>& v, T* w, Index i) {
  const T w_i = static_cast<T>(op(preconditioned_entries<T, Weighted>{v.r, v.inverse_diagonal}, i));
  w[i] = w_i;
  v.z[i] = 0;
  v.s[i] = 0;
  v.p[i] = 0;
  return w_i * preconditioned_entries<T, Weighted>{v.r, v.inverse_diagonal}(i);
}

// The updates of row i of an iteration once n_i = row i of A M^-1 w_old is known, and row i's terms of the
// new r . M^-1 r and w . M^-1 r (cg_pipelined_row computes n_i first; host kernels compute a block's n
// first, then update the block in a loop that vectorizes). Every entry is loaded before the first store: the
// compiler cannot tell the vectors apart, so a load written after a store stays after it, and a GPU thread's
// loads of one row would travel in two rounds, one after the other (three with Jacobi), instead of one
// (docs/solvers.md). w_old may be w_new (an update in place): its entry is read before it is written. Where
// preconditioned_w is given (Weighted only), M^-1 w of the new w goes there too, from the entries in hand.
template <bool Weighted, class T, class Index>
KSYNC_ALWAYS_INLINE KSYNC_HOST_DEVICE cg_sum_pair<T> cg_pipelined_update(const cg_pipelined_vectors<T>& v,
                                                                         const T* w_old, T* w_new, T alpha, T beta,
                                                                         T n_i, Index i,
                                                                         T* preconditioned_w = nullptr) {
  const T z_old = v.z[i];
  const T s_old = v.s[i];
  const T p_old = v.p[i];
  const T r_old = v.r[i];
  const T x_old = v.x[i];
  const T w_old_i = w_old[i];
  const T inverse_i = Weighted ? v.inverse_diagonal[i] : T(1);
  const T z_i = n_i + beta * z_old;
  const T s_i = w_old_i + beta * s_old;
  const T p_i = (Weighted ? r_old * inverse_i : r_old) + beta * p_old;
  const T r_i = r_old - alpha * s_i;
  const T w_i = w_old_i - alpha * z_i;
  v.x[i] = x_old + alpha * p_i;
  v.z[i] = z_i;
  v.s[i] = s_i;
  v.p[i] = p_i;
  v.r[i] = r_i;
  w_new[i] = w_i;
  if constexpr (Weighted) {
    if (preconditioned_w != nullptr) preconditioned_w[i] = inverse_i * w_i;
  }
  const T u_i = Weighted ? r_i * inverse_i : r_i;
  return {.rho = r_i * u_i, .delta = w_i * u_i};
}

// Row i of an iteration (alpha = rho / p.Ap and beta from the state): the updates, and row i's terms of the
// new r . M^-1 r and w . M^-1 r. Reads w_old at row i's neighbours, writes w_new at row i only.
template <bool Weighted, class T, class Operator, class Index>
KSYNC_HOST_DEVICE cg_sum_pair<T> cg_pipelined_row(const Operator& op, const cg_pipelined_vectors<T>& v, const T* w_old,
                                                  T* w_new, T alpha, T beta, Index i) {
  const T n_i = static_cast<T>(op(preconditioned_entries<T, Weighted>{w_old, v.inverse_diagonal}, i));
  return cg_pipelined_update<Weighted>(v, w_old, w_new, alpha, beta, n_i, i);
}

}  // namespace ksync::detail
