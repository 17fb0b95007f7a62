// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::spmv — the sparse matrix-vector product y = A x of a ksync::csr_matrix (ksync/csr_matrix.hpp):
//   y(i) = sum over row i's entries k of values(k) * x(columns(k)),  i < a.rows()
// Asynchronous on `exec` (no fence). The strategies (ksync::spmv_strategy, types.hpp; one file each in
// detail/spmv/) share the rows among threads: row_per_thread, or lanes_per_row (a vector-lane group per row);
// `automatic` runs a row per thread on CPU backends and, on a GPU backend, lanes_per_row once the mean row
// length reaches 16 (detail::spmv_long_rows, ksync/detail/spmv_choice.hpp). Kernels are labelled
// "ksync::spmv::<strategy>". The native twin is ksync::cuda::spmv (ksync/cuda/device/spmv.hpp); each half runs
// its own rows, so there is no bridge.
#pragma once

#include <ksync/backend.hpp>
#include <ksync/csr_matrix.hpp>
#include <ksync/detail/arguments.hpp>
#include <ksync/detail/checks.hpp>
#include <ksync/detail/spmv/strategies.hpp>
#include <ksync/detail/spmv_choice.hpp>
#include <ksync/types.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace ksync {

// y = A x on `exec`. x must have a.cols() elements and y a.rows(), and the two must not overlap; otherwise
// std::invalid_argument names the argument and its value, before any work.
template <class ExecutionSpace, class T, class Index, class MemorySpace, class Offset, class XView, class YView>
void spmv(const ExecutionSpace& exec, const csr_matrix<T, Index, MemorySpace, Offset>& a, const XView& x,
          const YView& y, spmv_strategy strategy = spmv_strategy::automatic) {
  constexpr const char* where = "ksync::spmv";
  static_assert(detail::takes_exec_and_two_views_v<ExecutionSpace, XView, YView>,
                "ksync::spmv: the first argument must be a Kokkos execution space instance, `x` and `y` rank-1 Views "
                "that it can access");
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible,
                "ksync::spmv: exec must be able to read the matrix's memory space");
  static_assert(
      std::is_same_v<typename XView::non_const_value_type, T> && std::is_same_v<typename YView::value_type, T>,
      "ksync::spmv: `x` must hold the matrix's value type and `y` be a non-const View of it");
  detail::check_spmv_strategy(where, strategy, strategy_half::portable);
  detail::check_argument(static_cast<std::int64_t>(x.extent(0)) == a.cols(), where, "x.extent(0) = ", x.extent(0),
                         " but a has ", a.cols(), " columns");
  detail::check_argument(static_cast<std::int64_t>(y.extent(0)) == a.rows(), where, "y.extent(0) = ", y.extent(0),
                         " but a has ", a.rows(), " rows");
  detail::check_spmv_disjoint(where, x.data(), x.span() * sizeof(T), y.data(), y.span() * sizeof(T));
  if (a.rows() == 0) return;
  const spmv_strategy chosen =
      detail::spmv_choice(strategy, strategy_half::portable, !runs_on_host<ExecutionSpace>, a.rows(), a.nnz());
  detail::portable_spmv_strategies::dispatch(where, chosen, [&]<class Strategy>() { Strategy::run(exec, a, x, y); });
}

}  // namespace ksync
