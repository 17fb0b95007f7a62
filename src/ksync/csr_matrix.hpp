// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::csr_matrix — a sparse matrix in compressed-sparse-row form (ksync/csr.hpp) held in Views, checked
// once when it is made. It is a row operator of ksync::cg (op.extent(), op(v, i)), so every portable CG form
// runs on it, and on Kokkos::Cuda the native forms take it through the bridge (ksync::cuda::cg on
// ksync::cuda::csr_matrix). The native twin is ksync::cuda::csr_matrix (ksync/cuda/csr_matrix.hpp).
//
//   csr_matrix<T, Index, MemorySpace, Offset> a(exec, rows, cols, row_offsets, columns, values);
//   csr_matrix a(exec, host_matrix);            copies a ksync::host_csr_matrix (Matrix Market, generators)
//   csr_matrix a(exec, crs);                    a KokkosSparse::CrsMatrix's Views, shared, not copied
//
// Making one is blocking: the structure is checked on `exec` (a min-reduction over the rows) and the
// constructor throws std::invalid_argument naming the first faulty row: offsets that do not start at 0,
// decrease or do not end at the number of entries; a column index outside [0, cols); extents that disagree.
// The Views are shared with the caller, who must not change the structure afterwards.
#pragma once

#include <ksync/compat.hpp>
#include <ksync/csr.hpp>
#include <ksync/detail/arguments.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ksync {

namespace detail {

// The structural check: extents on the host, then the first faulty row from a min-reduction on exec
// (blocking: exec is fenced for the host value). A free function: nvcc takes no device lambda in a private
// member.
template <class ExecutionSpace, class OffsetsView, class ColumnsView>
void check_csr_on(const ExecutionSpace& exec, const char* where, std::int64_t rows, std::int64_t cols,
                  const OffsetsView& row_offsets, const ColumnsView& columns, std::int64_t nnz) {
  check_csr_extents(where, rows, cols, static_cast<std::int64_t>(row_offsets.extent(0)),
                    static_cast<std::int64_t>(columns.extent(0)), nnz);
  std::int64_t first = csr_no_fault;
  if (rows > 0) {
    const auto* offsets = row_offsets.data();
    const auto* column_of = columns.data();
    Kokkos::parallel_reduce(
        "ksync::csr_matrix::check", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, rows),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t& smallest) {
          const std::int64_t fault = csr_row_fault(offsets, column_of, rows, cols, nnz, i);
          if (fault < smallest) smallest = fault;
        },
        Kokkos::Min<std::int64_t>(first));
    exec.fence("ksync::csr_matrix::check");
  }
  check_csr_fault(where, first, cols, nnz);
}

// A host vector's copy in a View of `MemorySpace`, enqueued on exec: the vector must outlive the copy (fence
// exec before it goes).
template <class MemorySpace, class ExecutionSpace, class V>
Kokkos::View<const V*, MemorySpace> device_copy_of(const ExecutionSpace& exec, const char* label,
                                                   const std::vector<V>& host) {
  Kokkos::View<V*, MemorySpace> device(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string(label)),
                                       host.size());
  Kokkos::deep_copy(
      exec, device,
      Kokkos::View<const V*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host.data(), host.size()));
  return device;
}

}  // namespace detail

template <class T, class Index = std::int32_t, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space,
          class Offset = Index>
class csr_matrix {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "ksync::csr_matrix holds float or double");
  static_assert(detail::csr_integer_v<Index> && detail::csr_integer_v<Offset>,
                "ksync::csr_matrix: Index and Offset must be std::int32_t, std::int64_t or std::uint64_t");

 public:
  using value_type = T;
  using index_type = Index;
  using offset_type = Offset;
  using memory_space = MemorySpace;
  using offsets_view = Kokkos::View<const Offset*, MemorySpace>;
  using columns_view = Kokkos::View<const Index*, MemorySpace>;
  using values_view = Kokkos::View<const T*, MemorySpace>;

  csr_matrix() = default;

  template <class ExecutionSpace>
  csr_matrix(const ExecutionSpace& exec, std::int64_t rows, std::int64_t cols, offsets_view row_offsets,
             columns_view columns, values_view values)
      : rows_(rows),
        cols_(cols),
        row_offsets_(std::move(row_offsets)),
        columns_(std::move(columns)),
        values_(std::move(values)) {
    static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible,
                  "ksync::csr_matrix: exec must be able to read the matrix's memory space");
    check(exec);
  }

  // Copies a host matrix to MemorySpace on exec (and checks it there).
  template <class ExecutionSpace>
  csr_matrix(const ExecutionSpace& exec, const host_csr_matrix<T, Index, Offset>& host)
      : csr_matrix(exec, host.rows, host.cols,
                   detail::device_copy_of<MemorySpace>(exec, "ksync::csr_matrix::row_offsets", host.row_offsets),
                   detail::device_copy_of<MemorySpace>(exec, "ksync::csr_matrix::columns", host.columns),
                   detail::device_copy_of<MemorySpace>(exec, "ksync::csr_matrix::values", host.values)) {}

  // Shares the Views of a KokkosSparse::CrsMatrix (any type with its graph.row_map, graph.entries, values,
  // numRows() and numCols(); Kokkos Kernels need not be found to compile this).
  template <class ExecutionSpace, class Crs>
    requires requires(const Crs& a) {
      a.graph.row_map.data();
      a.graph.entries.data();
      a.values.data();
      a.numRows();
      a.numCols();
    }
  csr_matrix(const ExecutionSpace& exec, const Crs& a)
      : csr_matrix(exec, static_cast<std::int64_t>(a.numRows()), static_cast<std::int64_t>(a.numCols()),
                   offsets_view(a.graph.row_map), columns_view(a.graph.entries), values_view(a.values)) {}

  KOKKOS_FUNCTION std::int64_t rows() const { return rows_; }
  KOKKOS_FUNCTION std::int64_t cols() const { return cols_; }
  KOKKOS_FUNCTION std::int64_t nnz() const { return static_cast<std::int64_t>(values_.extent(0)); }
  // ksync::cg's row-operator shape: the unknowns (a square matrix's rows) and row i of A v.
  KOKKOS_FUNCTION std::int64_t extent() const { return rows_; }
  template <class Vector>
  KOKKOS_FUNCTION T operator()(const Vector& v, std::int64_t i) const {
    return detail::csr_row_apply<T>(row_offsets_.data(), columns_.data(), values_.data(), v, i);
  }

  // A(i, i): the sum of row i's entries in column i (0 where there is none).
  KOKKOS_FUNCTION T diagonal(std::int64_t i) const {
    return detail::csr_diagonal<T>(row_offsets_.data(), columns_.data(), values_.data(), i);
  }

  const offsets_view& row_offsets() const { return row_offsets_; }
  const columns_view& columns() const { return columns_; }
  const values_view& values() const { return values_; }

  // The same arrays and extents (Views compare by data, span and extents): what a kept CG graph keys on.
  friend bool operator==(const csr_matrix&, const csr_matrix&) = default;

 private:
  template <class ExecutionSpace>
  void check(const ExecutionSpace& exec) const {
    detail::check_csr_on(exec, "ksync::csr_matrix", rows_, cols_, row_offsets_, columns_, nnz());
  }

  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
  offsets_view row_offsets_;
  columns_view columns_;
  values_view values_;
};

// Deduction from a host matrix: the default memory space of exec.
template <class ExecutionSpace, class T, class Index, class Offset>
csr_matrix(const ExecutionSpace&, const host_csr_matrix<T, Index, Offset>&)
    -> csr_matrix<T, Index, typename ExecutionSpace::memory_space, Offset>;

}  // namespace ksync
