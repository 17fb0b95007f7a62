// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::parallel_reduce — f(i, acc) for every i in [0, n), folded into `result`, written as Kokkos code
// writes it, with the mapping of indices to threads a strategy.
//
//   parallel_reduce(exec, n, f, result[, strategy])         result: see below
//   parallel_reduce(label, exec, n, f, result[, strategy])  the same, the kernel labelled for Kokkos Tools
//   parallel_reduce([label,] exec, rows, cols, f, result[, strategy[, order]])   f(i, j, acc): the 2-D form
//
// result, as Kokkos::parallel_reduce takes it:
//   - a host scalar T& (the sum): blocking. On Kokkos::Cuda with ksync's native half and T an int32, int64,
//     float or double, the value comes home through ksync::cuda's mailbox (the host waits for the value,
//     not for a fence); elsewhere Kokkos fences `exec` (that instance only).
//   - a rank-0 View (the sum): asynchronous, the value lands in the View in exec's order.
//   - a Kokkos reducer (Kokkos::Sum, Min, Max, MinLoc, MaxLoc, ... over a host scalar: blocking; over a
//     View: asynchronous).
// f adds index i's term into acc (acc += ..., or the reducer's join). n: std::int32_t (f receives an
// std::int32_t) or any other integer type (f receives an std::int64_t). f is called exactly once for each
// index. The order in which terms are combined is not fixed (docs/index-functors.md gives the error bound of
// a float sum).
//
// strategy, one of two kinds:
//   - an index_strategy (automatic, kokkos, batched): Kokkos alone, on every backend, any value type and
//     any reducer. Its native rows map ksync::cuda::parallel_for's indices and are refused here. Where the
//     value is arithmetic and the result a host scalar, a rank-0 View, or Kokkos::Sum, Min or Max,
//     `automatic` folds as a reduce_strategy (below) instead: on host backends as tuned, 1.8-5x Kokkos' own
//     loop for a dot on OpenMP (float sums then kept in double, as ksync::reduce keeps them); on Kokkos::Cuda
//     with the native half (int32, int64, float, double) as the native last_block (docs/index-functors.md).
//   - a reduce_strategy: f's terms folded as ksync::reduce folds a View's elements — kokkos, team, tuned
//     (Kokkos alone, every backend) or, on Kokkos::Cuda in a translation unit compiled as CUDA, the native
//     two_pass, last_block, grid_sync, cluster, atomics (ksync::cuda::parallel_reduce, through the bridge;
//     int32, int64, float and double). Arithmetic values; a host scalar, a rank-0 View, or Kokkos::Sum, Min
//     or Max.
// The 2-D form follows these rules over the flat index k < rows * cols, but for two rows (its comment below):
// kokkos runs MDRangePolicy, and on host backends batched (and automatic where tuned cannot fold the result)
// folds lines of the fast index into Kokkos' accumulator (a float sum stays in float there).
#pragma once

#include <ksync/detail/index_pair.hpp>
#include <ksync/detail/native_bridge.hpp>
#include <ksync/detail/parallel/arguments.hpp>
#include <ksync/detail/parallel/index_terms.hpp>
#include <ksync/detail/parallel/strategies.hpp>
#include <ksync/index_strategy.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace ksync {
namespace detail {

// The accumulator type f(i, acc) folds into, from what `result` is.
template <class Result, class = void>
struct reduction_value {
  using type = std::remove_cvref_t<Result>;  // a host scalar
};
template <class Result>
struct reduction_value<Result, std::enable_if_t<Kokkos::is_view_v<std::remove_cvref_t<Result>>>> {
  using type = typename std::remove_cvref_t<Result>::non_const_value_type;
};
template <class Result>
struct reduction_value<Result, std::enable_if_t<Kokkos::is_reducer_v<std::remove_cvref_t<Result>>>> {
  using type = typename std::remove_cvref_t<Result>::value_type;
};

// Whether `Result` is no View, or a View of rank 0.
template <class Result>
constexpr bool no_view_or_rank_zero() {
  if constexpr (Kokkos::is_view_v<Result>) {
    return Result::rank == 0;
  } else {
    return true;
  }
}

// What parallel_reduce takes as `result` (both forms): a host scalar by reference, a rank-0 View or a reducer.
template <class Result>
constexpr void assert_result_kind() {
  using Plain = std::remove_cvref_t<Result>;
  static_assert(Kokkos::is_view_v<Plain> || Kokkos::is_reducer_v<Plain> || std::is_lvalue_reference_v<Result>,
                "ksync::parallel_reduce: result must be a host scalar (by reference), a rank-0 View or a Kokkos "
                "reducer");
  static_assert(no_view_or_rank_zero<Plain>(), "ksync::parallel_reduce: a View result must be rank 0");
}

template <class Strategy>
concept parallel_reduce_strategy =
    std::is_same_v<Strategy, index_strategy> || std::is_same_v<Strategy, reduce_strategy>;

// Whether a reduce_strategy can fold into `Result` (reduce_index_terms): arithmetic values into a host scalar, a
// rank-0 View, or Kokkos::Sum, Min or Max.
template <class Acc, class Plain>
constexpr bool folds_as_reduction_impl() {
  if constexpr (Kokkos::is_reducer_v<Plain>) {
    return std::is_arithmetic_v<Acc> && reducer_op<Plain>::known;
  } else {
    return std::is_arithmetic_v<Acc>;
  }
}
template <class Acc, class Plain>
inline constexpr bool folds_as_reduction = folds_as_reduction_impl<Acc, Plain>();

// Runs fold(target) into `result`: a host scalar on a backend with ksync's native mailbox comes home through
// it (the host waits for the value, not for a fence of exec); anything else is fold's own target.
template <class Acc, class ExecutionSpace, class Result, class Fold>
void fold_into_result(const ExecutionSpace& exec, Result&& result, const Fold& fold) {
  using Plain = std::remove_cvref_t<Result>;
  if constexpr (!Kokkos::is_view_v<Plain> && !Kokkos::is_reducer_v<Plain> && has_native_mailbox<ExecutionSpace, Acc>) {
    result = blocking_through_mailbox<Acc>(exec, [&](const auto& slot) { fold(slot); });
  } else {
    fold(std::forward<Result>(result));
  }
}

// parallel_reduce with an index_strategy: Kokkos' parallel_reduce over the strategy's work items (on host
// backends `automatic` folds as reduce_strategy::tuned where the result allows it).
template <class Acc, class ExecutionSpace, class Index, class F, class Result>
void reduce_by_index_strategy(const std::string& label, const ExecutionSpace& exec, Index n, const F& f,
                              index_strategy strategy, Result&& result) {
  using Plain = std::remove_cvref_t<Result>;
  constexpr const char* where = "ksync::parallel_reduce";
  check_index_strategy(where, strategy);
  check_argument(!is_native(strategy), where, "strategy = ", to_string(strategy),
                 " maps ksync::cuda::parallel_for's indices; parallel_reduce runs ",
                 names_of_half<index_strategy>{strategy_half::portable}, ", or a reduce_strategy");
  if constexpr (runs_on_host<ExecutionSpace> && folds_as_reduction<Acc, Plain>) {
    // Host backends: `automatic` folds as reduce_strategy::tuned does (contiguous chunks into independent
    // accumulators, which the compiler vectorizes); Kokkos' own loop adds every term into one accumulator.
    if (strategy == index_strategy::automatic) {
      reduce_index_terms<Acc>(label, exec, n, f, reduce_strategy::tuned, std::forward<Result>(result));
      return;
    }
  }
  if constexpr (folds_as_reduction<Acc, Plain> && twin_of<"ksync::parallel_reduce", ExecutionSpace, Acc>::exists) {
    // Kokkos::Cuda with the native half, in a translation unit compiled as CUDA: `automatic` folds by the
    // native last_block kernel (ksync::cuda::parallel_reduce, four terms' loads in flight per thread), faster
    // than Kokkos' reduction at every n the benchmarks sweep (docs/index-functors.md).
    if (strategy == index_strategy::automatic) {
      reduce_index_terms<Acc>(label, exec, n, f, reduce_strategy::last_block, std::forward<Result>(result));
      return;
    }
  }
  const auto choice = portable_index_choice<ExecutionSpace>(strategy, /*reduction=*/true);
  const auto fold = [&](auto&& target) {
    portable_index_strategies::dispatch(where, choice, [&]<class Row>() {
      Row::template run_reduce<Acc>(label, exec, n, f, std::forward<decltype(target)>(target));
    });
  };
  fold_into_result<Acc>(exec, std::forward<Result>(result), fold);
}

}  // namespace detail

template <class ExecutionSpace, detail::index_count N, class F, class Result,
          detail::parallel_reduce_strategy Strategy = index_strategy>
  requires Kokkos::is_execution_space_v<ExecutionSpace>
void parallel_reduce(const std::string& label, const ExecutionSpace& exec, N n, const F& f, Result&& result,
                     Strategy strategy = Strategy::automatic) {
  using Index = detail::index_type_of<N>;
  using Acc = typename detail::reduction_value<Result>::type;
  detail::assert_result_kind<Result>();
  static_assert(std::is_invocable_v<const F&, Index, Acc&>,
                "ksync::parallel_reduce: f must be callable as f(i, acc) with the index type of n and the result's "
                "value type (for f(i) use ksync::parallel_for)");
  const auto count = detail::checked_index_count<Index>("ksync::parallel_reduce", n);
  if constexpr (std::is_same_v<Strategy, reduce_strategy>) {
    detail::reduce_index_terms<Acc>(label, exec, count, f, strategy, std::forward<Result>(result));
  } else {
    detail::reduce_by_index_strategy<Acc>(label, exec, count, f, strategy, std::forward<Result>(result));
  }
}

template <class ExecutionSpace, detail::index_count N, class F, class Result,
          detail::parallel_reduce_strategy Strategy = index_strategy>
  requires Kokkos::is_execution_space_v<ExecutionSpace>
void parallel_reduce(const ExecutionSpace& exec, N n, const F& f, Result&& result,
                     Strategy strategy = Strategy::automatic) {
  ksync::parallel_reduce("ksync::parallel_reduce", exec, n, f, std::forward<Result>(result), strategy);
}

// The 2-D form: f(i, j, acc) for i < rows, j < cols (Kokkos' MDRangePolicy<Rank<2>> reduction). rows, cols and
// order as the 2-D ksync::parallel_for takes them. index_strategy::kokkos runs MDRangePolicy; on host backends
// batched, and automatic where tuned cannot fold the result (portable_pair_choice), folds a line of the fast
// index per work item into Kokkos' accumulator (where there are as many lines as threads: lines_fill); every
// other case runs the 1-D form over the flat index k < rows * cols (ksync/detail/index_pair.hpp) with the same
// strategy, so its results and rounding (on host backends its error bound: tuned's host walk takes the terms
// line by line, its partial sums restarting with each line): on GPU backends automatic and batched, on host
// backends automatic as tuned, and every reduce_strategy on every backend.
template <class ExecutionSpace, detail::index_count R, detail::index_count C, class F, class Result,
          detail::parallel_reduce_strategy Strategy = index_strategy>
  requires Kokkos::is_execution_space_v<ExecutionSpace>
void parallel_reduce(const std::string& label, const ExecutionSpace& exec, R rows, C cols, const F& f, Result&& result,
                     Strategy strategy = Strategy::automatic, iterate order = detail::layout_order<ExecutionSpace>) {
  using Index = detail::pair_index_type_of<R, C>;
  using Acc = typename detail::reduction_value<Result>::type;
  detail::assert_result_kind<Result>();
  static_assert(std::is_invocable_v<const F&, Index, Index, Acc&>,
                "ksync::parallel_reduce: with rows and cols, f must be callable as f(i, j, acc) with two indices and "
                "the result's value type");
  constexpr const char* where = "ksync::parallel_reduce";
  const auto row_count = detail::checked_index_count<Index>(where, rows, "rows");
  const auto col_count = detail::checked_index_count<Index>(where, cols, "cols");
  const Index count = detail::checked_pair_count(where, row_count, col_count);
  if constexpr (std::is_same_v<Strategy, index_strategy>) detail::check_index_strategy(where, strategy);
  detail::check_iterate(where, order);
  if constexpr (std::is_same_v<Strategy, index_strategy>) {
    if (strategy == index_strategy::kokkos) {
      detail::fold_into_result<Acc>(exec, std::forward<Result>(result), [&](auto&& target) {
        detail::index_strategies::kokkos::run_reduce_pairs<Acc>(label, exec, row_count, col_count, order, f,
                                                                std::forward<decltype(target)>(target));
      });
      return;
    }
    if constexpr (runs_on_host<ExecutionSpace>) {
      // `automatic` with a result tuned can fold goes below to the 1-D form, whose `automatic` folds as tuned:
      // its host walk takes a 2-D functor's terms line by line (reduce/tuned.hpp). Otherwise a line per work
      // item: through the flat index a split per index kept the loop from vectorizing (a float Dot 2.2x
      // slower than MDRangePolicy on OpenMP, docs/index-functors.md).
      const bool tuned_folds =
          detail::folds_as_reduction<Acc, std::remove_cvref_t<Result>> && strategy == index_strategy::automatic;
      const Index slow = order == iterate::left ? col_count : row_count;
      if (!tuned_folds && detail::portable_pair_choice(strategy) == index_strategy::batched &&
          detail::lines_fill(exec, slow)) {
        detail::index_strategies::batched::run_reduce_pairs<Acc>(label, exec, row_count, col_count, order, f,
                                                                 std::forward<Result>(result));
        return;
      }
    }
  }
  detail::with_iterate(order, [&]<iterate Order>() {
    ksync::parallel_reduce(label, exec, count, detail::make_index_pair_reduce<Order>(f, row_count, col_count),
                           std::forward<Result>(result), strategy);
  });
}

template <class ExecutionSpace, detail::index_count R, detail::index_count C, class F, class Result,
          detail::parallel_reduce_strategy Strategy = index_strategy>
  requires Kokkos::is_execution_space_v<ExecutionSpace>
void parallel_reduce(const ExecutionSpace& exec, R rows, C cols, const F& f, Result&& result,
                     Strategy strategy = Strategy::automatic, iterate order = detail::layout_order<ExecutionSpace>) {
  ksync::parallel_reduce("ksync::parallel_reduce", exec, rows, cols, f, std::forward<Result>(result), strategy, order);
}

}  // namespace ksync
