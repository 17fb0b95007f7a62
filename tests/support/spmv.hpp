// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What both halves' y = A x tests share: the matrices (every generated family at the smallest and odd sizes,
// a rectangular one with empty rows, one with a few very long rows, one whose every row is long), the host
// reference in double, and the bound each row's value is held to.
#pragma once

#include "sparse.hpp"

#include <ksync/csr.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ksync::test {

// rows x cols (rectangular, so that x and y differ in length) where the first and last rows and every third
// row are empty and the others hold 1 to 5 entries, columns out of order and one repeated (entries add up).
template <class T, class Index, class Offset = Index>
host_csr_matrix<T, Index, Offset> with_empty_rows(std::int64_t rows = 41, std::int64_t cols = 23) {
  std::vector<std::vector<std::pair<std::int64_t, double>>> entries(static_cast<std::size_t>(rows));
  for (std::int64_t i = 1; i + 1 < rows; ++i) {
    if (i % 3 == 0) continue;
    for (std::int64_t e = 0; e <= i % 5; ++e)
      entries[i].emplace_back((i * 7 + (4 - e) * 5) % cols, 0.5 + static_cast<double>((i + e) % 7) * 0.25);
    if (i % 4 == 1) entries[i].push_back(entries[i].front());  // a repeated column
  }
  return assemble<T, Index, Offset>(rows, cols, entries);
}

// `rows` rows of 0 to 3 entries, except `long_rows` of them (the first, the last and some between) with
// `long_length` entries each: a group of lanes loops over them many times while its neighbours are done.
template <class T, class Index, class Offset = Index>
host_csr_matrix<T, Index, Offset> with_long_rows(std::int64_t rows, std::int64_t cols, std::int64_t long_length,
                                                 std::int64_t long_rows = 3) {
  std::vector<std::vector<std::pair<std::int64_t, double>>> entries(static_cast<std::size_t>(rows));
  const std::int64_t spacing = long_rows > 1 ? (rows - 1) / (long_rows - 1) : rows;
  for (std::int64_t i = 0; i < rows; ++i) {
    const bool is_long = i % spacing == 0 || i + 1 == rows;
    const std::int64_t length = is_long ? long_length : i % 4;
    for (std::int64_t e = 0; e < length; ++e)
      entries[i].emplace_back((i * 13 + e * 31) % cols, 1.0 - static_cast<double>((i + 3 * e) % 11) / 8.0);
  }
  return assemble<T, Index, Offset>(rows, cols, entries);
}

// A named matrix of the cases below.
template <class T, class Index, class Offset>
struct spmv_case {
  std::string name;
  host_csr_matrix<T, Index, Offset> a;
};

// Every generated family at m = 1, 2, 3 and odd sizes (m^2 or m^3 rows), a matrix with empty rows, one with a
// few very long rows (1000 entries among rows of 0-3: mean 21, lanes_per_row on a GPU), rows of 40, 70 and
// 130 entries and rows of 256 (the benchmarks' long rows): so that the native lanes_per_row runs every group
// width it has (spmv_group_width: 2 on the stencils, 4, 8, 16 and 32) and the portable one every vector
// length (spmv_vector_length: 4 up to rows of 40, 8 at 70, 16 at 130, 32 at 256).
template <class T, class Index, class Offset>
std::vector<spmv_case<T, Index, Offset>> spmv_cases() {
  std::vector<spmv_case<T, Index, Offset>> cases;
  for (const auto family : all_sparse_families) {
    const std::vector<int> sizes =
        family == sparse_family::poisson_3d ? std::vector<int>{1, 2, 3, 5} : std::vector<int>{1, 2, 3, 5, 7};
    for (const int m : sizes)
      cases.push_back({to_string(family) + ", m = " + std::to_string(m), generate<T, Index, Offset>(family, m)});
  }
  cases.push_back({"empty rows", with_empty_rows<T, Index, Offset>()});
  cases.push_back({"a few long rows", with_long_rows<T, Index, Offset>(157, 2111, 1000)});
  cases.push_back({"rows of 40", with_long_rows<T, Index, Offset>(96, 400, 40, 96)});
  cases.push_back({"rows of 70", with_long_rows<T, Index, Offset>(80, 300, 70, 80)});
  cases.push_back({"rows of 130", with_long_rows<T, Index, Offset>(72, 300, 130, 72)});
  cases.push_back({"long rows", with_long_rows<T, Index, Offset>(64, 512, 256, 64)});
  return cases;
}

// y = A x in double from the matrix's and x's own values (so that only the sums' rounding differs), and for
// each row the bound a computed value must keep to: 2 gamma_L sum_k |a_ik x_k|, gamma_L = L u / (1 - L u) with
// u = epsilon / 2 of T and L the row's length. gamma_L bounds the rounding of a length-L dot product summed
// in any order (Higham, Accuracy and Stability of Numerical Algorithms, 3.1) — a thread's storage order and
// lanes_per_row's strided shares and tree alike; the factor 2 leaves room for the reference's own rounding,
// as large as the computed value's when T is double. An empty row must be exactly 0.
struct spmv_reference {
  std::vector<double> y;
  std::vector<double> bound;
};

template <class T, class Index, class Offset>
spmv_reference spmv_expected(const host_csr_matrix<T, Index, Offset>& a, const std::vector<T>& x) {
  spmv_reference reference{.y = std::vector<double>(static_cast<std::size_t>(a.rows), 0.0),
                           .bound = std::vector<double>(static_cast<std::size_t>(a.rows), 0.0)};
  const double u = std::numeric_limits<T>::epsilon() / 2;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const auto begin = static_cast<std::int64_t>(a.row_offsets[i]);
    const auto end = static_cast<std::int64_t>(a.row_offsets[i + 1]);
    double magnitude = 0;
    for (std::int64_t k = begin; k < end; ++k) {
      const double product = static_cast<double>(a.values[k]) * static_cast<double>(x[a.columns[k]]);
      reference.y[i] += product;
      magnitude += std::fabs(product);
    }
    const double length_u = static_cast<double>(end - begin) * u;
    reference.bound[i] = 2 * length_u / (1 - length_u) * magnitude;
  }
  return reference;
}

// Whether every row of y is within its bound of the reference; a failure names the first row that is not.
template <class T>
::testing::AssertionResult agrees(const std::vector<T>& y, const spmv_reference& reference) {
  if (y.size() != reference.y.size())
    return ::testing::AssertionFailure() << "y has " << y.size() << " rows, the reference " << reference.y.size();
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double error = std::fabs(static_cast<double>(y[i]) - reference.y[i]);
    if (!(error <= reference.bound[i]))  // a NaN fails too
      return ::testing::AssertionFailure() << "row " << i << ": y = " << y[i] << ", reference " << reference.y[i]
                                           << ", error " << error << " > bound " << reference.bound[i];
  }
  return ::testing::AssertionSuccess();
}

// Calls check.template operator()<Index, Offset>() for every index pair both matrices take.
template <class Check>
void for_each_index_pair(Check&& check) {
  check.template operator()<std::int32_t, std::int32_t>();
  check.template operator()<std::int32_t, std::int64_t>();
  check.template operator()<std::int64_t, std::int64_t>();
}

}  // namespace ksync::test
