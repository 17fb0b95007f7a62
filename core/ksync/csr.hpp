// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What both halves' sparse matrices share (plain C++, callable from CUDA and Kokkos kernels): the row of a
// compressed-sparse-row (CSR) matrix applied to a vector, the structural check both halves run on the
// device before any work, and the host-side matrix that the Matrix Market reader (ksync/matrix_market.hpp)
// and the tests' generators fill. ksync::csr_matrix (src/ksync/csr_matrix.hpp) holds the arrays as Views,
// ksync::cuda::csr_matrix (ksync/cuda/csr_matrix.hpp) as device pointers.
//
// CSR: row i's entries are values[k] at column columns[k] for k in [row_offsets[i], row_offsets[i + 1]);
// row_offsets has rows + 1 entries, starts at 0 and ends at the number of entries (nnz); within a row the
// columns may come in any order and repeat (repeated entries add up wherever the matrix is applied).
#pragma once

#include <ksync/detail/arguments.hpp>
#include <ksync/detail/host_device.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace ksync {

namespace detail {

// The integer types a CSR matrix's column indices (Index) and row offsets (Offset) take: signed 32-bit, or
// 64-bit for more entries (offsets) or columns (indices) than 32 bits hold; Kokkos Kernels' unsigned size_t
// offsets too (std::uint64_t).
template <class Integer>
inline constexpr bool csr_integer_v = std::is_same_v<Integer, std::int32_t> || std::is_same_v<Integer, std::int64_t> ||
                                      std::is_same_v<Integer, std::uint64_t>;

// Lane `lane`'s share of row i of A v when `lanes` lanes fold the row side by side (ksync::spmv's
// lanes_per_row): the products of entries row_offsets[i] + lane, + lane + lanes, ..., summed in that order, so
// that neighbouring lanes read neighbouring entries and their loads coalesce. A lane past the row's end
// returns 0. v(j) gives entry j.
template <class T, class Offset, class Index, class Vector>
KSYNC_HOST_DEVICE T csr_row_share(const Offset* row_offsets, const Index* columns, const T* values, const Vector& v,
                                  std::int64_t i, int lane, int lanes) {
  T sum = 0;
  const Offset end = row_offsets[i + 1];
  for (Offset k = row_offsets[i] + static_cast<Offset>(lane); k < end; k += static_cast<Offset>(lanes))
    sum += values[k] * v(static_cast<std::int64_t>(columns[k]));
  return sum;
}

// Row i of A v, where v(j) gives entry j (an array's accessor, or CG's direction r + beta p formed where A
// reads it): the one-lane share, the products summed in the row's storage order, so both halves compute the
// same bits.
template <class T, class Offset, class Index, class Vector>
KSYNC_HOST_DEVICE T csr_row_apply(const Offset* row_offsets, const Index* columns, const T* values, const Vector& v,
                                  std::int64_t i) {
  return csr_row_share<T>(row_offsets, columns, values, v, i, 0, 1);
}

// A(i, i): the sum of row i's entries in column i, 0 where there is none.
template <class T, class Offset, class Index>
KSYNC_HOST_DEVICE T csr_diagonal(const Offset* row_offsets, const Index* columns, const T* values, std::int64_t i) {
  T sum = 0;
  const Offset end = row_offsets[i + 1];
  for (Offset k = row_offsets[i]; k < end; ++k)
    if (static_cast<std::int64_t>(columns[k]) == i) sum += values[k];
  return sum;
}

// What the structural check found at a row (the smallest code wins at the first faulty row).
enum csr_fault : int {
  csr_sound = 0,
  csr_offsets_start = 1,     // row_offsets[0] != 0
  csr_offsets_decrease = 2,  // row_offsets[i + 1] < row_offsets[i]
  csr_offsets_end = 3,       // row_offsets[rows] != nnz
  csr_column_range = 4,      // a column index outside [0, cols)
  csr_offsets_range = 5,     // row_offsets[i + 1] outside [0, nnz] (a later row's offsets decrease)
};

inline constexpr std::int64_t csr_no_fault = INT64_MAX;

// The check of row i, as one integer: i * 8 + fault for a faulty row, csr_no_fault otherwise, so that the
// minimum over the rows (a min-reduction in each half) names the first faulty row and what is wrong there.
// Reads row_offsets[i], [i + 1] and the row's columns only where the offsets are sound.
template <class Offset, class Index>
KSYNC_HOST_DEVICE std::int64_t csr_row_fault(const Offset* row_offsets, const Index* columns, std::int64_t rows,
                                             std::int64_t cols, std::int64_t nnz, std::int64_t i) {
  const auto fault_at = [i](int fault) { return i * 8 + fault; };
  const auto begin = static_cast<std::int64_t>(row_offsets[i]);
  const auto end = static_cast<std::int64_t>(row_offsets[i + 1]);
  if (i == 0 && begin != 0) return fault_at(csr_offsets_start);
  if (end < begin) return fault_at(csr_offsets_decrease);
  if (i + 1 == rows && end != nnz) return fault_at(csr_offsets_end);
  if (begin < 0 || end > nnz) return fault_at(csr_offsets_range);
  for (std::int64_t k = begin; k < end; ++k) {
    const auto column = static_cast<std::int64_t>(columns[k]);
    if (column < 0 || column >= cols) return fault_at(csr_column_range);
  }
  return csr_no_fault;
}

// Throws std::invalid_argument naming `where` and the first faulty row, from the minimum of csr_row_fault.
inline void check_csr_fault(const char* where, std::int64_t first_fault, std::int64_t cols, std::int64_t nnz) {
  if (first_fault == csr_no_fault) return;
  const std::int64_t row = first_fault / 8;
  switch (static_cast<int>(first_fault % 8)) {
    case csr_offsets_start:
      check_argument(false, where, "row_offsets(0) must be 0");
      break;
    case csr_offsets_decrease:
      check_argument(false, where, "row_offsets decrease at row ", row, ": row_offsets(", row + 1, ") < row_offsets(",
                     row, ")");
      break;
    case csr_offsets_end:
      check_argument(false, where, "row_offsets(rows = ", row + 1, ") must be nnz = ", nnz);
      break;
    case csr_offsets_range:
      check_argument(false, where, "row_offsets(", row + 1, ") lies outside [0, nnz = ", nnz, "]");
      break;
    case csr_column_range:
      check_argument(false, where, "row ", row, " has a column index outside [0, cols = ", cols, ")");
      break;
    default:
      check_argument(false, where, "row ", row, " is faulty (code ", first_fault % 8, ")");
  }
}

// The checks of a matrix's extents that need no pass over its arrays.
inline void check_csr_extents(const char* where, std::int64_t rows, std::int64_t cols, std::int64_t offsets,
                              std::int64_t nnz_columns, std::int64_t nnz_values) {
  check_argument(rows > 0 || nnz_values == 0, where, "rows = 0 but there are ", nnz_values, " entries");
  check_argument(rows >= 0, where, "rows = ", rows, " is negative");
  check_argument(cols >= 0, where, "cols = ", cols, " is negative");
  check_argument(offsets == rows + 1, where, "row_offsets has ", offsets, " entries but rows = ", rows, " needs ",
                 rows + 1);
  check_argument(nnz_columns == nnz_values, where, "columns has ", nnz_columns, " entries but values has ", nnz_values);
}

}  // namespace detail

// A CSR matrix in host memory (std::vector), as the Matrix Market reader returns it: copy its arrays to
// the device and wrap them in ksync::csr_matrix or ksync::cuda::csr_matrix.
template <class T, class Index = std::int32_t, class Offset = Index>
struct host_csr_matrix {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "ksync::host_csr_matrix holds float or double");
  static_assert(detail::csr_integer_v<Index> && detail::csr_integer_v<Offset>,
                "ksync::host_csr_matrix: Index and Offset must be std::int32_t, std::int64_t or std::uint64_t");
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<Offset> row_offsets{0};
  std::vector<Index> columns;
  std::vector<T> values;

  [[nodiscard]] std::int64_t nnz() const { return static_cast<std::int64_t>(values.size()); }

  // Throws std::invalid_argument, naming the first faulty row, unless the arrays form a CSR matrix.
  void check(const char* where = "ksync::host_csr_matrix") const {
    detail::check_csr_extents(where, rows, cols, static_cast<std::int64_t>(row_offsets.size()),
                              static_cast<std::int64_t>(columns.size()), nnz());
    std::int64_t first = detail::csr_no_fault;
    for (std::int64_t i = 0; i < rows && first == detail::csr_no_fault; ++i)
      first = detail::csr_row_fault(row_offsets.data(), columns.data(), rows, cols, nnz(), i);
    detail::check_csr_fault(where, first, cols, nnz());
  }
};

}  // namespace ksync
