// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The arithmetic of the stencils both halves run (plain C++, callable from CUDA and Kokkos kernels), written
// once so that every form and backend computes the same bits.
#pragma once

#include <ksync/detail/host_device.hpp>

#include <cmath>  // NAN
#include <cstdint>

namespace ksync {

// One Jacobi update of an interior point of the 1-D Laplace problem: the mean of its two neighbours (the
// two end points keep their values). Written as (left + right) * 0.5: no product feeds a sum, so no
// compiler can contract it into an fma, and the result is the same on every backend; the product by 0.5
// is exact.
template <class T>
KSYNC_HOST_DEVICE constexpr T jacobi_update(T left, T right) {
  return (left + right) * static_cast<T>(0.5);
}

}  // namespace ksync

namespace ksync {

// One row of the 2-D Poisson operator (the 5-point Laplacian, -h^2 scaled, zero Dirichlet boundary) on an
// m x m grid: 4 u(c) minus its four neighbours, each neighbour 0 off the grid. Symmetric positive definite,
// the operator ksync::cg and ksync::cuda::cg have built in. Neighbours are summed in one fixed order so
// that both halves compute the same bits.
template <class T>
KSYNC_HOST_DEVICE constexpr T poisson_2d_row(T center, T west, T east, T south, T north) {
  return static_cast<T>(4) * center - ((west + east) + (south + north));
}

// The vectors the stencils read, as v(j): a plain array, and CG's new search direction r + beta p formed
// on the fly where the operator reads it (both halves' CG kernels).
template <class T>
struct array_entries {
  const T* data;
  KSYNC_HOST_DEVICE T operator()(std::int64_t j) const { return data[j]; }
};
// With Jacobi preconditioning the direction is M^-1 r + beta p (inverse_diagonal: M^-1's entries; null for
// none).
template <class T>
struct direction_entries {
  const T* r;
  const T* p;
  T beta;
  const T* inverse_diagonal = nullptr;
  KSYNC_HOST_DEVICE T operator()(std::int64_t j) const {
    return (inverse_diagonal == nullptr ? r[j] : r[j] * inverse_diagonal[j]) + beta * p[j];
  }
};

// M^-1's entry for a diagonal entry d of A: 1 / d, or NaN where d is zero, negative or not finite (the start
// sums these entries and refuses a NaN sum).
template <class T>
KSYNC_HOST_DEVICE T jacobi_inverse(T d) {
  return d > T(0) && d - d == T(0) ? T(1) / d : static_cast<T>(NAN);
}

// Row i = row * m + col of the 2-D Poisson operator applied to v, where v(j) gives entry j (a View, a raw
// array's accessor, or a vector formed on the fly such as r + beta p). m * m < 2^31 (callers check).
template <class T, class Vector>
KSYNC_HOST_DEVICE T poisson_2d_apply(const Vector& v, int m, int i) {
  const int row = i / m;
  const int col = i - row * m;
  const T zero = 0;
  return poisson_2d_row<T>(v(i), col > 0 ? v(i - 1) : zero, col + 1 < m ? v(i + 1) : zero, row > 0 ? v(i - m) : zero,
                           row + 1 < m ? v(i + m) : zero);
}

// Rows first, ..., first + count - 1 of the 2-D Poisson operator applied to v, into out[0], ..., out[count - 1]:
// the same bits as poisson_2d_apply row by row, for host loops. poisson_2d_apply divides by m and tests
// four neighbours at every row, which keeps a CPU loop scalar and costs more than the row's memory traffic;
// here each grid row is split into its two end points and its interior, whose points all have four
// neighbours (the grid row's south and north tested once), in a loop that vectorizes. out must not overlap
// the arrays v reads.
template <class T, class Vector>
void poisson_2d_apply_rows(const Vector& v, std::int64_t m, std::int64_t first, std::int64_t count, T* out) {
  const T zero = 0;
  const std::int64_t end = first + count;
  std::int64_t i = first;
  while (i < end) {
    const std::int64_t row = i / m;
    const std::int64_t row_start = row * m;
    const std::int64_t row_end = row_start + m < end ? row_start + m : end;
    const bool south = row > 0;
    const bool north = row + 1 < m;
    const auto point = [&](std::int64_t j) {  // any point of the grid row, its neighbours tested
      const std::int64_t col = j - row_start;
      out[j - first] = poisson_2d_row<T>(v(j), col > 0 ? v(j - 1) : zero, col + 1 < m ? v(j + 1) : zero,
                                         south ? v(j - m) : zero, north ? v(j + m) : zero);
    };
    if (i == row_start) point(i++);  // column 0: no west neighbour
    const std::int64_t interior_end = row_start + m - 1 < row_end ? row_start + m - 1 : row_end;
    if (south && north) {
      KSYNC_INDEPENDENT_ITERATIONS
      for (std::int64_t j = i; j < interior_end; ++j)
        out[j - first] = poisson_2d_row<T>(v(j), v(j - 1), v(j + 1), v(j - m), v(j + m));
    } else {
      for (std::int64_t j = i; j < interior_end; ++j)
        point(j);
    }
    i = interior_end > i ? interior_end : i;
    while (i < row_end)
      point(i++);  // column m - 1: no east neighbour
  }
}

}  // namespace ksync
