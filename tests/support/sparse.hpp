// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The sparse matrices both halves' CSR tests solve (symmetric positive definite, assembled as
// ksync::host_csr_matrix), and the host CG in double they are compared with.
#pragma once

#include "cg_reference.hpp"

#include <ksync/cg_types.hpp>
#include <ksync/csr.hpp>
#include <ksync/strategy_rows.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ksync::test {

// Assembles rows x cols from each row's (column, value) entries: per-row maps (column -> value) give them in
// column order, per-row vectors of pairs in the order given (a repeated column kept, its values adding up).
template <class T, class Index, class Offset = Index, class Rows>
host_csr_matrix<T, Index, Offset> assemble(std::int64_t rows, std::int64_t cols, const Rows& entries) {
  host_csr_matrix<T, Index, Offset> a;
  a.rows = rows;
  a.cols = cols;
  a.row_offsets.assign(1, 0);
  for (const auto& row : entries) {
    for (const auto& [column, value] : row) {
      a.columns.push_back(static_cast<Index>(column));
      a.values.push_back(static_cast<T>(value));
    }
    a.row_offsets.push_back(static_cast<Offset>(a.columns.size()));
  }
  return a;
}

// The square rows x rows matrix of per-row maps (column -> value).
template <class T, class Index, class Offset = Index>
host_csr_matrix<T, Index, Offset> assemble(std::int64_t rows,
                                           const std::vector<std::map<std::int64_t, double>>& entries) {
  return assemble<T, Index, Offset>(rows, rows, entries);
}

// The families of generated matrices.
enum class sparse_family { poisson_2d, poisson_3d, anisotropic_2d, variable_2d, random_laplacian };

// From a table in the enum's order, as ksync names reduce_op and issue_order (detail::name_in): "unknown" past it.
inline std::string to_string(sparse_family family) {
  constexpr std::string_view names[] = {"poisson_2d", "poisson_3d", "anisotropic_2d", "variable_2d",
                                        "random_laplacian"};
  return std::string(ksync::detail::name_in(names, family));
}

inline constexpr sparse_family all_sparse_families[] = {sparse_family::poisson_2d, sparse_family::poisson_3d,
                                                        sparse_family::anisotropic_2d, sparse_family::variable_2d,
                                                        sparse_family::random_laplacian};

// A matrix of the family with about m^2 unknowns (m^3 for the 3-D one, m^2 nodes for the random graph):
//   poisson_2d       the 5-point Laplacian on m x m (the same rows as ksync::poisson_2d)
//   poisson_3d       the 7-point Laplacian on m x m x m
//   anisotropic_2d   the 5-point operator with coupling 1 across rows and 0.01 along them
//   variable_2d      -div(k grad u) with k varying by two orders of magnitude over the grid (harmonic means)
//   random_laplacian the Laplacian of a random graph (each node linked to about 4 others, weights in (0.1, 1])
//                    plus 0.05 on the diagonal
template <class T, class Index, class Offset = Index>
host_csr_matrix<T, Index, Offset> generate(sparse_family family, int m, unsigned int seed = 7) {
  std::vector<std::map<std::int64_t, double>> rows;
  const auto link = [&](std::int64_t i, std::int64_t j, double weight) {  // a symmetric coupling i - j
    rows[i][i] += weight;
    rows[j][j] += weight;
    rows[i][j] -= weight;
    rows[j][i] -= weight;
  };
  const auto ground = [&](std::int64_t i, double weight) { rows[i][i] += weight; };  // a Dirichlet neighbour
  const std::int64_t mm = m;
  switch (family) {
    case sparse_family::poisson_2d:
    case sparse_family::anisotropic_2d:
    case sparse_family::variable_2d: {
      rows.resize(static_cast<std::size_t>(mm * mm));
      const auto k = [&](std::int64_t row, std::int64_t col) {  // the coefficient field of variable_2d
        return family == sparse_family::variable_2d
                   ? std::pow(10.0,
                              2.0 * static_cast<double>((row * 7 + col * 3) % (mm + 1)) / static_cast<double>(mm + 1))
                   : 1.0;
      };
      const double along = family == sparse_family::anisotropic_2d ? 0.01 : 1.0;
      for (std::int64_t row = 0; row < mm; ++row) {
        for (std::int64_t col = 0; col < mm; ++col) {
          const std::int64_t i = row * mm + col;
          const auto harmonic = [&](std::int64_t r2, std::int64_t c2) {
            return 2.0 / (1.0 / k(row, col) + 1.0 / k(r2, c2));
          };
          rows[i][i] += 0.0;  // the diagonal first, even where only grounds add to it
          if (col + 1 < mm) link(i, i + 1, along * harmonic(row, col + 1));
          if (row + 1 < mm) link(i, i + mm, harmonic(row + 1, col));
          if (col == 0) ground(i, along * k(row, col));
          if (col + 1 == mm) ground(i, along * k(row, col));
          if (row == 0) ground(i, k(row, col));
          if (row + 1 == mm) ground(i, k(row, col));
        }
      }
      break;
    }
    case sparse_family::poisson_3d: {
      rows.resize(static_cast<std::size_t>(mm * mm * mm));
      for (std::int64_t z = 0; z < mm; ++z) {
        for (std::int64_t y = 0; y < mm; ++y) {
          for (std::int64_t x = 0; x < mm; ++x) {
            const std::int64_t i = (z * mm + y) * mm + x;
            rows[i][i] += 0.0;
            if (x + 1 < mm) link(i, i + 1, 1.0);
            if (y + 1 < mm) link(i, i + mm, 1.0);
            if (z + 1 < mm) link(i, i + mm * mm, 1.0);
            ground(i,
                   static_cast<double>((x == 0) + (x + 1 == mm) + (y == 0) + (y + 1 == mm) + (z == 0) + (z + 1 == mm)));
          }
        }
      }
      break;
    }
    case sparse_family::random_laplacian: {
      const std::int64_t n = mm * mm;
      rows.resize(static_cast<std::size_t>(n));
      std::mt19937 generator(seed);
      std::uniform_int_distribution<std::int64_t> node(0, n - 1);
      std::uniform_real_distribution<double> weight(0.1, 1.0);
      for (std::int64_t i = 0; i < n; ++i) {
        ground(i, 0.05);
        for (int e = 0; e < 2 && n > 1; ++e) {
          const std::int64_t j = node(generator);
          if (j != i) link(i, j, weight(generator));
        }
      }
      break;
    }
  }
  return assemble<T, Index, Offset>(static_cast<std::int64_t>(rows.size()), rows);
}

// A right-hand side of n values in [-1, 1], the same for a seed on every machine.
template <class T>
std::vector<T> sparse_right_hand_side(std::int64_t n, unsigned int seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<T> b(static_cast<std::size_t>(n));
  for (auto& entry : b)
    entry = static_cast<T>(value(generator));
  return b;
}

// y = A x in double.
template <class T, class Index, class Offset>
std::vector<double> host_apply(const host_csr_matrix<T, Index, Offset>& a, const std::vector<double>& x) {
  std::vector<double> y(static_cast<std::size_t>(a.rows), 0.0);
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (auto k = static_cast<std::int64_t>(a.row_offsets[i]); k < static_cast<std::int64_t>(a.row_offsets[i + 1]); ++k)
      y[i] += static_cast<double>(a.values[k]) * x[static_cast<std::size_t>(a.columns[k])];
  return y;
}

// The sizes the solver tests run a family at: m^2 unknowns (m^3 for poisson_3d), the smallest ones and odd ones.
inline std::vector<int> solver_test_sizes(sparse_family family) {
  return family == sparse_family::poisson_3d ? std::vector<int>{1, 2, 3, 6} : std::vector<int>{1, 2, 3, 7, 16};
}

// Fewer for Jacobi PCG, whose solves add to those: 16^3 unknowns of poisson_3d left out (the 2-D sizes cover it).
inline std::vector<int> preconditioned_test_sizes(sparse_family family) {
  return family == sparse_family::poisson_3d ? std::vector<int>{2, 7} : std::vector<int>{2, 7, 16};
}

// M^-1 = 1 / diag(A) of Jacobi preconditioning, in double.
template <class T, class Index, class Offset>
std::vector<double> host_inverse_diagonal(const host_csr_matrix<T, Index, Offset>& a) {
  std::vector<double> inverse(static_cast<std::size_t>(a.rows), 0.0);
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (auto k = static_cast<std::int64_t>(a.row_offsets[i]); k < static_cast<std::int64_t>(a.row_offsets[i + 1]); ++k)
      if (static_cast<std::int64_t>(a.columns[k]) == i) inverse[i] += static_cast<double>(a.values[k]);
  for (auto& entry : inverse)
    entry = 1.0 / entry;
  return inverse;
}

// CG in double from x0 (with jacobi, PCG with M = diag(A)): host_pcg on the assembled matrix.
template <class T, class Index, class Offset>
cg_reference_result host_sparse_cg(const host_csr_matrix<T, Index, Offset>& a, const std::vector<T>& b,
                                   const std::vector<T>& x0, double tolerance, int max_iterations,
                                   bool jacobi = false) {
  const auto apply = [&](const std::vector<double>& v, std::vector<double>& y) { y = host_apply(a, v); };
  const std::vector<double> weight =
      jacobi ? host_inverse_diagonal(a) : std::vector<double>(static_cast<std::size_t>(a.rows), 1.0);
  return host_pcg(apply, weight, b, x0, tolerance, max_iterations);
}

// ||b - A x|| / ||b|| in double (with jacobi: in the M^-1 norm).
template <class T, class Index, class Offset>
double sparse_true_residual(const host_csr_matrix<T, Index, Offset>& a, const std::vector<T>& b,
                            const std::vector<T>& x, bool jacobi = false) {
  const std::vector<double> ax = host_apply(a, std::vector<double>(x.begin(), x.end()));
  const std::vector<double> weight = jacobi ? host_inverse_diagonal(a) : std::vector<double>(ax.size(), 1.0);
  double residual = 0;
  double scale = 0;
  for (std::size_t i = 0; i < ax.size(); ++i) {
    const double r = static_cast<double>(b[i]) - ax[i];
    residual += r * r * weight[i];
    scale += static_cast<double>(b[i]) * static_cast<double>(b[i]) * weight[i];
  }
  return std::sqrt(residual / scale);
}

// y = A v in T, each row's terms in storage order (csr_row_apply, as both halves' kernels add them).
template <class T, class Index, class Offset>
std::vector<T> host_product(const host_csr_matrix<T, Index, Offset>& a, const std::vector<T>& v) {
  std::vector<T> y(static_cast<std::size_t>(a.rows));
  for (std::int64_t i = 0; i < a.rows; ++i)
    y[i] = ksync::detail::csr_row_apply(
        a.row_offsets.data(), a.columns.data(), a.values.data(), [&](std::int64_t j) { return v[j]; }, i);
  return y;
}

}  // namespace ksync::test
