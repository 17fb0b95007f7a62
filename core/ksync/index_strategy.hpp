// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The index strategies both halves' parallel_for (and the portable parallel_reduce) share (plain C++), as
// types.hpp holds the other operations' strategies, and the order the 2-D forms iterate in (iterate).
#pragma once

#include <ksync/detail/arguments.hpp>
#include <ksync/strategy_rows.hpp>

#include <string_view>

namespace ksync {

// How ksync::parallel_for and ksync::parallel_reduce (and ksync::cuda::parallel_for) map the indices
// [0, n) of an index functor f(i) (or f(i, acc)) to threads. docs/index-functors.md has the measurements.
//   automatic         — each half's choice: portable parallel_for the native automatic on Kokkos::Cuda with
//                       the native half, batched on other GPU backends, kokkos on host backends;
//                       parallel_reduce kokkos, or where the result is arithmetic a reduce_strategy
//                       (tuned on host backends, the native last_block on Kokkos::Cuda); native
//                       block_batched, or thread_per_index where n is too small to fill the GPU
//   Portable (Kokkos only, any backend):
//   kokkos            — Kokkos' RangePolicy(0, n), one index per work item: what Kokkos code writes
//   batched           — GPU backends: RangePolicy over m = n / 4 work items, each calling f for w, w + m,
//                       w + 2m, w + 3m (a warp's accesses stay contiguous); host backends: as kokkos
//                       (Kokkos' loop already gives each thread a contiguous share, and vectorizes)
//   The 2-D forms (rows, cols): kokkos is MDRangePolicy; automatic is batched where it stays portable (but a
//   sum, min or max on host backends folds as the 1-D automatic, by reduce_strategy::tuned), and on host
//   backends batched is a line of the fast index per work item; the rest run over the flat index.
//   Native (ksync::cuda::parallel_for; from ksync::parallel_for on Kokkos::Cuda through the bridge):
//   thread_per_index  — one index per thread, as hand-written CUDA kernels are usually written
//   block_batched     — each block of 256 threads covers 4 * 256 consecutive indices, a thread every 256th
//   grid_stride       — a grid of as many blocks as can be resident (the occupancy model), looping over [0, n)
enum class index_strategy { automatic, kokkos, batched, thread_per_index, block_batched, grid_stride };

inline constexpr strategy_row<index_strategy> index_strategy_rows[] = {
    {.id = index_strategy::automatic, .name = "automatic", .half = strategy_half::either},
    {.id = index_strategy::kokkos, .name = "kokkos", .half = strategy_half::portable},
    {.id = index_strategy::batched, .name = "batched", .half = strategy_half::portable},
    {.id = index_strategy::thread_per_index, .name = "thread_per_index", .half = strategy_half::native},
    {.id = index_strategy::block_batched, .name = "block_batched", .half = strategy_half::native},
    {.id = index_strategy::grid_stride, .name = "grid_stride", .half = strategy_half::native},
};
static_assert(detail::rows_follow_the_enum(index_strategy_rows),
              "index_strategy_rows must list the index_strategy values in order");

constexpr const auto& strategy_rows(index_strategy /*tag*/) noexcept {
  return index_strategy_rows;
}

inline constexpr auto all_index_strategies = detail::ids_of(index_strategy_rows);

// The 2-D forms (f(i, j) over rows x cols): which index neighbouring work items step through, as
// Kokkos::Iterate names it for MDRangePolicy. left: i, the first (the stride-1 index of a LayoutLeft View,
// Kokkos' default on GPUs); right: j, the last (LayoutRight's, Kokkos' default on host backends, and a C
// array's a[rows][cols]). Threads that step through the stride-1 index read and write contiguous memory.
enum class iterate { left, right };

[[nodiscard]] constexpr std::string_view to_string(iterate order) noexcept {
  return order == iterate::left ? "left" : "right";
}

}  // namespace ksync
