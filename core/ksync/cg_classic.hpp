// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The classic CG recurrence's row update (cg_recurrence::classic, ksync/cg_types.hpp), written once for both
// halves' kernels, one device or many ranks: x += alpha p, r -= alpha Ap, and row i's term of the new r . M^-1 r.
#pragma once

#include <ksync/detail/host_device.hpp>

#include <type_traits>

namespace ksync::detail {

// Entry i of a vector given as a pointer, or as anything indexed as v(i) (a Kokkos View, strided or not).
template <class Vector, class Index>
KSYNC_ALWAYS_INLINE KSYNC_HOST_DEVICE decltype(auto) entry_of(const Vector& v, Index i) {
  if constexpr (std::is_pointer_v<Vector>) {
    return v[i];
  } else {
    return v(i);
  }
}

// Row i of the classic update; returns row i's term of the new r . M^-1 r (r . r where Weighted is false;
// inverse_diagonal is then not read). Every entry is loaded before the first store: the compiler cannot tell the
// vectors apart, so a load written after a store stays after it, and a GPU thread's loads of one row would travel
// in two rounds, one after the other, instead of one. In a reduction, where a thread folds many rows in turn,
// that round trip is what an iteration waits for (docs/solvers.md: the update took 1.7x the time of a plain
// parallel_for's on an H100).
template <bool Weighted, class T, class XVector, class Index>
KSYNC_ALWAYS_INLINE KSYNC_HOST_DEVICE T cg_classic_update(const XVector& x, T* r, const T* p, const T* ap,
                                                          const T* inverse_diagonal, T alpha, Index i) {
  const T x_old = entry_of(x, i);
  const T p_i = p[i];
  const T r_old = r[i];
  const T ap_i = ap[i];
  const T inverse_i = Weighted ? inverse_diagonal[i] : T(1);
  const T r_i = r_old - alpha * ap_i;
  entry_of(x, i) = x_old + alpha * p_i;
  r[i] = r_i;
  return Weighted ? r_i * r_i * inverse_i : r_i * r_i;
}

}  // namespace ksync::detail
