// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::reduce — the sum of a rank-1 View, written with Kokkos alone. The hand-written CUDA twin is
// ksync::cuda::reduce (cuda_native/include/ksync/cuda/device/reduce.hpp).
//
//   ksync::reduce(exec, data, result)  asynchronous: the sum lands in the rank-0 View `result` once `exec`
//                                      reaches that point of its queue; nothing is fenced.
//   auto s = ksync::reduce(exec, data) blocking: returns the sum on the host; `exec` (only it) is fenced.
//
// Floating-point sums are combined in an unspecified order, so they differ from a sequential sum by
// rounding; the error never exceeds (n-1) u / (1 - (n-1) u) * sum |x_i| (u: the unit roundoff of the
// accumulator, see detail::accumulator_t). On GPU backends it is far smaller: each thread adds only a few
// values before a tree combines the partials.
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

// The type partial sums are kept in. On host backends each thread adds a contiguous share of the data in
// sequence, and a float partial of values of one sign stops growing once it passes 2^24 (a small addend
// rounds away; the benchmark's check failed at 2^24 and 2^28 floats on 2 OpenMP threads). So float data is
// summed in double there, at no cost to a memory-bound loop. On GPU backends each thread adds only a few
// values before the tree combines them (as CUB does), and float stays float.
template <class ExecutionSpace, class T>
using accumulator_t = std::conditional_t<
    std::is_same_v<T, float> &&
        Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecutionSpace::memory_space>::accessible,
    double, T>;

// One element per index; Kokkos combines the per-thread partial sums. 64-bit indices so that Views of more
// than 2^31 elements reduce correctly.
template <class DataView, class Accumulator>
struct SumFunctor {
  DataView data;
  KOKKOS_FUNCTION void operator()(std::int64_t i, Accumulator& sum) const { sum += data(i); }
};

// Stores a wider accumulator into the caller's result View, in stream order.
template <class WideView, class ResultView>
struct NarrowResult {
  WideView wide;
  ResultView result;
  KOKKOS_FUNCTION void operator()(int /*index*/) const {
    result() = static_cast<typename ResultView::value_type>(wide());
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
  using value_type = typename DataView::non_const_value_type;
  using accumulator = detail::accumulator_t<ExecutionSpace, value_type>;
  const auto n = static_cast<std::int64_t>(data.extent(0));
  const detail::IndexPolicy<ExecutionSpace> policy(exec, 0, n);
  if constexpr (std::is_same_v<accumulator, value_type>) {
    Kokkos::parallel_reduce("ksync::reduce::sum", policy, detail::SumFunctor<DataView, accumulator>{data}, result);
  } else {
    const Kokkos::View<accumulator, typename ResultView::memory_space> wide(
        Kokkos::view_alloc(exec, "ksync::reduce::accumulator"));
    Kokkos::parallel_reduce("ksync::reduce::sum", policy, detail::SumFunctor<DataView, accumulator>{data}, wide);
    Kokkos::parallel_for("ksync::reduce::narrow", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, 1),
                         detail::NarrowResult<decltype(wide), ResultView>{wide, result});
  }
}

// Blocking: returns the sum of `data`; fences `exec` (Kokkos does so for a host result), nothing else.
template <class ExecutionSpace, class DataView>
[[nodiscard]] typename DataView::non_const_value_type reduce(const ExecutionSpace& exec, const DataView& data) {
  detail::check_reduce_arguments<ExecutionSpace, DataView>();
  using value_type = typename DataView::non_const_value_type;
  using accumulator = detail::accumulator_t<ExecutionSpace, value_type>;
  accumulator sum{};
  const auto n = static_cast<std::int64_t>(data.extent(0));
  Kokkos::parallel_reduce("ksync::reduce::sum", detail::IndexPolicy<ExecutionSpace>(exec, 0, n),
                          detail::SumFunctor<DataView, accumulator>{data}, sum);
  return static_cast<value_type>(sum);
}

}  // namespace ksync
