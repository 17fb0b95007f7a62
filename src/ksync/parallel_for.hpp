// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::parallel_for — f(i) for every i in [0, n), written as Kokkos code writes it (an index functor or a
// KOKKOS_LAMBDA), with the mapping of indices to threads a strategy: Kokkos alone on every backend, or, on
// Kokkos::Cuda, ksync::cuda::parallel_for through the bridge (cuda_native/include/ksync/cuda/device/
// parallel_for.cuh). `automatic` takes the native one's own `automatic` where the bridge reaches it (below).
//
//   parallel_for(exec, n, f[, strategy])         asynchronous: enqueued on `exec`; nothing is fenced
//   parallel_for(label, exec, n, f[, strategy])  the same, the kernel labelled `label` for Kokkos Tools
//
// n: std::int32_t (f receives an std::int32_t) or any other integer type (f receives an std::int64_t; n may
// be 2^31 or more). f is called exactly once for each index, in no particular order and with no barrier
// between calls, as Kokkos' parallel_for promises. Unlabelled kernels are labelled "ksync::parallel_for";
// a native strategy (and `automatic` where it runs natively) runs inside a Kokkos Tools region of that label
// (its kernel is not Kokkos'). There f is a kernel parameter: at most 32,764 bytes, CUDA's limit.
//
//   parallel_for([label,] exec, rows, cols, f[, strategy[, order]])   f(i, j) for i < rows, j < cols
//
// The 2-D form, what Kokkos code writes with MDRangePolicy<Rank<2>>. rows and cols: f receives std::int32_t
// where both are std::int32_t (rows * cols must then fit one), std::int64_t otherwise. order (ksync::iterate)
// names the index that neighbouring work items step through, by default the one exec's default layout
// strides by 1 (left, i, on GPU backends; right, j, on host backends), as Kokkos' MDRangePolicy defaults.
// kokkos runs MDRangePolicy; automatic and batched run the 1-D strategies over the flat index k < rows *
// cols (ksync/detail/index_pair.hpp: (i, j) from k by a multiply and shifts, no division), the native
// automatic where the 1-D form runs it, and on host backends batched (what automatic runs there) loops over
// the fast index inside each work item of the slow one where there are as many lines as threads (the flat
// index where there are fewer). The native rows: the 1-D native rows over the flat index, through the bridge.
#pragma once

#include <ksync/detail/bridge/parallel_for.hpp>
#include <ksync/detail/index_pair.hpp>
#include <ksync/detail/native_bridge.hpp>
#include <ksync/detail/parallel/arguments.hpp>
#include <ksync/detail/parallel/strategies.hpp>
#include <ksync/index_strategy.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

namespace ksync {

namespace detail {

// Where `automatic` runs ksync::cuda::parallel_for's `automatic` (block_batched; thread_per_index where n is
// too small for a batched block on every multiprocessor, grid_stride past a full grid): Kokkos::Cuda with the
// native half, in a translation unit compiled as CUDA. On an H200 the bridge's thread_per_index and
// block_batched rows read 1.0-1.2x Kokkos' RangePolicy at 2^16-2^18, where the portable batched (a quarter of
// the work items: fewer blocks than multiprocessors at 2^16) read 0.86-1.01x; on an H100 `automatic` so read
// 1.01-1.58x at every n from 2^16 to 2^20 (docs/index-functors.md). Elsewhere `automatic` is
// portable_index_choice()'s.
template <class ExecutionSpace, class Index>
inline constexpr bool automatic_for_runs_native = twin_of<"ksync::parallel_for", ExecutionSpace, Index>::exists;

}  // namespace detail

template <class ExecutionSpace, detail::index_count N, class F>
  requires Kokkos::is_execution_space_v<ExecutionSpace>
void parallel_for(const std::string& label, const ExecutionSpace& exec, N n, const F& f,
                  index_strategy strategy = index_strategy::automatic) {
  using Index = detail::index_type_of<N>;
  static_assert(std::is_invocable_v<const F&, Index>,
                "ksync::parallel_for: f must be callable as f(i) with one index (for f(i, acc) use "
                "ksync::parallel_reduce; for f(i, j) pass rows and cols)");
  constexpr const char* where = "ksync::parallel_for";
  const auto count = detail::checked_index_count<Index>(where, n);
  detail::check_index_strategy(where, strategy);
  detail::check_native_reachable<"ksync::parallel_for", ExecutionSpace, Index>(where, "strategy", strategy,
                                                                               /*needs_cuda_compiler=*/true);
  if (is_native(strategy) ||
      (strategy == index_strategy::automatic && detail::automatic_for_runs_native<ExecutionSpace, Index>)) {
    const detail::tools_region region(label);
    detail::native<"ksync::parallel_for", Index>(exec, count, f, strategy);
    return;
  }
  detail::portable_index_strategies::dispatch(
      where, detail::portable_index_choice<ExecutionSpace>(strategy, /*reduction=*/false),
      [&]<class Strategy>() { Strategy::run_for(label, exec, count, f); });
}

template <class ExecutionSpace, detail::index_count N, class F>
  requires Kokkos::is_execution_space_v<ExecutionSpace>
void parallel_for(const ExecutionSpace& exec, N n, const F& f, index_strategy strategy = index_strategy::automatic) {
  ksync::parallel_for("ksync::parallel_for", exec, n, f, strategy);
}

template <class ExecutionSpace, detail::index_count R, detail::index_count C, class F>
  requires Kokkos::is_execution_space_v<ExecutionSpace>
void parallel_for(const std::string& label, const ExecutionSpace& exec, R rows, C cols, const F& f,
                  index_strategy strategy = index_strategy::automatic,
                  iterate order = detail::layout_order<ExecutionSpace>) {
  using Index = detail::pair_index_type_of<R, C>;
  static_assert(std::is_invocable_v<const F&, Index, Index>,
                "ksync::parallel_for: with rows and cols, f must be callable as f(i, j) with two indices");
  constexpr const char* where = "ksync::parallel_for";
  const auto row_count = detail::checked_index_count<Index>(where, rows, "rows");
  const auto col_count = detail::checked_index_count<Index>(where, cols, "cols");
  const Index count = detail::checked_pair_count(where, row_count, col_count);
  detail::check_index_strategy(where, strategy);
  detail::check_iterate(where, order);
  detail::check_native_reachable<"ksync::parallel_for", ExecutionSpace, Index>(where, "strategy", strategy,
                                                                               /*needs_cuda_compiler=*/true);
  if (is_native(strategy) ||
      (strategy == index_strategy::automatic && detail::automatic_for_runs_native<ExecutionSpace, Index>)) {
    const detail::tools_region region(label);
    detail::with_iterate(order, [&]<iterate Order>() {
      detail::native<"ksync::parallel_for", Index>(
          exec, count, detail::make_index_pair_for<Order>(f, row_count, col_count), strategy);
    });
    return;
  }
  detail::portable_index_strategies::dispatch(where, detail::portable_pair_choice(strategy), [&]<class Strategy>() {
    Strategy::run_for_pairs(label, exec, row_count, col_count, order, f);
  });
}

template <class ExecutionSpace, detail::index_count R, detail::index_count C, class F>
  requires Kokkos::is_execution_space_v<ExecutionSpace>
void parallel_for(const ExecutionSpace& exec, R rows, C cols, const F& f,
                  index_strategy strategy = index_strategy::automatic,
                  iterate order = detail::layout_order<ExecutionSpace>) {
  ksync::parallel_for("ksync::parallel_for", exec, rows, cols, f, strategy, order);
}

}  // namespace ksync
