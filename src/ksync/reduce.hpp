// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::reduce — the sum of a rank-1 View, written with Kokkos alone. The hand-written CUDA twin is
// ksync::cuda::reduce (cuda_native/include/ksync/cuda/device/reduce.hpp).
//
//   ksync::reduce(exec, data, result)  asynchronous: the sum lands in the rank-0 View `result` once `exec`
//                                      reaches that point of its queue; nothing is fenced.
//   auto s = ksync::reduce(exec, data) blocking: returns the sum on the host; `exec` (only it) is fenced.
//
// The sum is accumulated in the View's value type, in an unspecified order: floating-point results differ
// from a sequential sum by rounding (for float, expect a relative error of order n * 2^-24 in the worst
// case and far less for data of one sign).
#pragma once

#include <ksync/compat.hpp>

#include <cstdint>
#include <type_traits>

namespace ksync {

namespace detail {

template <class ExecutionSpace, class DataView>
constexpr void check_reduce_arguments() {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "ksync::reduce: the first argument must be a Kokkos execution space instance");
  static_assert(Kokkos::is_view_v<DataView>, "ksync::reduce: `data` must be a Kokkos::View");
  static_assert(compat::view_rank<DataView> == 1, "ksync::reduce: `data` must be a rank-1 View");
  static_assert(std::is_arithmetic_v<typename DataView::non_const_value_type>,
                "ksync::reduce: `data` must hold an arithmetic type");
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, typename DataView::memory_space>::accessible,
                "ksync::reduce: `data` lives in a memory space that `exec` cannot access");
}

// One element per index; Kokkos combines the per-thread partial sums. 64-bit indices so that Views of more
// than 2^31 elements reduce correctly.
template <class DataView>
struct SumFunctor {
  DataView data;
  KOKKOS_FUNCTION void operator()(std::int64_t i, typename DataView::non_const_value_type& sum) const {
    sum += data(i);
  }
};

template <class ExecutionSpace>
using IndexPolicy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;

}  // namespace detail

// Asynchronous: enqueues the sum of `data` into the rank-0 View `result` on `exec`.
template <class ExecutionSpace, class DataView, class ResultView>
void reduce(const ExecutionSpace& exec, const DataView& data, const ResultView& result) {
  detail::check_reduce_arguments<ExecutionSpace, DataView>();
  static_assert(Kokkos::is_view_v<ResultView> && compat::view_rank<ResultView> == 0,
                "ksync::reduce: `result` must be a rank-0 Kokkos::View");
  static_assert(std::is_same_v<typename ResultView::value_type, typename DataView::non_const_value_type>,
                "ksync::reduce: `result` must hold the non-const value type of `data`");
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, typename ResultView::memory_space>::accessible,
                "ksync::reduce: `result` lives in a memory space that `exec` cannot access");
  const auto n = static_cast<std::int64_t>(data.extent(0));
  Kokkos::parallel_reduce("ksync::reduce::sum", detail::IndexPolicy<ExecutionSpace>(exec, 0, n),
                          detail::SumFunctor<DataView>{data}, result);
}

// Blocking: returns the sum of `data`; fences `exec` (Kokkos does so for a host result), nothing else.
template <class ExecutionSpace, class DataView>
[[nodiscard]] typename DataView::non_const_value_type reduce(const ExecutionSpace& exec, const DataView& data) {
  detail::check_reduce_arguments<ExecutionSpace, DataView>();
  typename DataView::non_const_value_type sum{};
  const auto n = static_cast<std::int64_t>(data.extent(0));
  Kokkos::parallel_reduce("ksync::reduce::sum", detail::IndexPolicy<ExecutionSpace>(exec, 0, n),
                          detail::SumFunctor<DataView>{data}, sum);
  return sum;
}

}  // namespace ksync
