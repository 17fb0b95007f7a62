// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::csr_matrix — a sparse matrix in compressed-sparse-row form (ksync/csr.hpp) over device
// arrays the caller owns, checked once when it is made. ksync::cuda::cg takes it in every native form. The
// portable twin is ksync::csr_matrix (src/ksync/csr_matrix.hpp), which reaches these forms through the
// bridge on Kokkos::Cuda.
//
//   csr_matrix<T, Index, Offset> a(stream, rows, cols, nnz, row_offsets, columns, values);
//
// Making one is blocking: the structure is checked by a kernel on `stream`, and the constructor throws
// std::invalid_argument naming the first faulty row (offsets that do not start at 0, decrease or do not end
// at nnz; a column index outside [0, cols)), or null arrays where there are entries. The arrays stay the
// caller's: they must outlive the matrix and keep their structure.
#pragma once

#include <ksync/csr.hpp>
#include <ksync/detail/host_device.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

namespace ksync::cuda {

template <class T, class Index = std::int32_t, class Offset = Index>
class csr_matrix {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "ksync::cuda::csr_matrix holds float or double");
  static_assert((std::is_same_v<Index, std::int32_t> && std::is_same_v<Offset, std::int32_t>) ||
                    (std::is_same_v<Index, std::int32_t> && std::is_same_v<Offset, std::int64_t>) ||
                    (std::is_same_v<Index, std::int64_t> && std::is_same_v<Offset, std::int64_t>),
                "ksync::cuda::csr_matrix: (Index, Offset) must be (int32, int32), (int32, int64) or (int64, int64)");

 public:
  using value_type = T;
  using index_type = Index;
  using offset_type = Offset;

  csr_matrix() = default;
  csr_matrix(cudaStream_t stream, std::int64_t rows, std::int64_t cols, std::int64_t nnz, const Offset* row_offsets,
             const Index* columns, const T* values);

  // Over arrays whose structure was checked already (the bridge hands over a ksync::csr_matrix, checked when it
  // was made): no kernel, no wait. Arrays that were not checked this way make every operation on the matrix
  // undefined.
  [[nodiscard]] static csr_matrix already_checked(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                                                  const Offset* row_offsets, const Index* columns, const T* values) {
    csr_matrix a;
    a.rows_ = rows;
    a.cols_ = cols;
    a.nnz_ = nnz;
    a.row_offsets_ = row_offsets;
    a.columns_ = columns;
    a.values_ = values;
    return a;
  }

  [[nodiscard]] KSYNC_HOST_DEVICE std::int64_t rows() const { return rows_; }
  [[nodiscard]] KSYNC_HOST_DEVICE std::int64_t cols() const { return cols_; }
  [[nodiscard]] KSYNC_HOST_DEVICE std::int64_t nnz() const { return nnz_; }
  [[nodiscard]] const Offset* row_offsets() const { return row_offsets_; }
  [[nodiscard]] const Index* columns() const { return columns_; }
  [[nodiscard]] const T* values() const { return values_; }

  // Row i of A v, where v(j) gives entry j.
  template <class Vector>
  KSYNC_HOST_DEVICE T operator()(const Vector& v, std::int64_t i) const {
    return ksync::detail::csr_row_apply<T>(row_offsets_, columns_, values_, v, i);
  }

  // A(i, i): the sum of row i's entries in column i (0 where there is none).
  KSYNC_HOST_DEVICE T diagonal(std::int64_t i) const {
    return ksync::detail::csr_diagonal<T>(row_offsets_, columns_, values_, i);
  }

  // The same arrays and extents: what a captured CUDA graph keys on.
  friend bool operator==(const csr_matrix&, const csr_matrix&) = default;

 private:
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
  std::int64_t nnz_ = 0;
  const Offset* row_offsets_ = nullptr;
  const Index* columns_ = nullptr;
  const T* values_ = nullptr;
};

}  // namespace ksync::cuda
