// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What both halves' y = A x (ksync::spmv, ksync::cuda::spmv) decide from a matrix's shape, written once: the
// row `automatic` runs, the width of lanes_per_row's group, and the argument checks they share (plain C++).
#pragma once

#include <ksync/detail/arguments.hpp>
#include <ksync/strategy_rows.hpp>
#include <ksync/types.hpp>

#include <cstddef>
#include <cstdint>

namespace ksync::detail {

// The mean row length rounded up (0 for a matrix without rows).
constexpr std::int64_t spmv_mean_row_length(std::int64_t rows, std::int64_t nnz) noexcept {
  return rows > 0 ? (nnz + rows - 1) / rows : 0;
}

// The largest power of two at or below `value`, between `smallest` and 32 (a warp): a lane group's width.
constexpr int spmv_power_of_two_at_most(std::int64_t value, int smallest) noexcept {
  int width = smallest;
  while (width < 32 && std::int64_t{2} * width <= value)
    width *= 2;
  return width;
}

// The mean row length (nnz / rows, rounded up) from which `automatic` runs lanes_per_row on a GPU, per half.
// Measured on an H200 (docs/results/2026-12-04-h200-f818fbe: banded rows of 8 ... 128 entries, 16 M entries
// at every length, double; µs per product):
// - native, from 8: a group of spmv_group_width lanes beats a row per thread at every length timed from 8
//   (69 against 75 at 8 entries, 62 against 119 at 16, 54 against 151 at 128). Below 8 a row per thread: a
//   stencil row (5 or 7 entries, 40-56 bytes of values) lies in one or two 32-byte sectors that the thread's
//   next loads find in L1, and it won at 5 and 7 entries.
// - portable, from 16: its lanes_per_row with spmv_vector_length lanes beat a row per thread from 16 entries
//   (105 against 121 µs at 16, 93 against 156 at 32; docs/results/2026-12-04-h200-9f82242, pwidth/) and lost
//   at 8 and 12 (109 against 75 at 12).
constexpr std::int64_t spmv_long_rows(strategy_half half) noexcept {
  return half == strategy_half::native ? 8 : 16;
}

// The native lanes_per_row's group width: the power of two at or below a quarter of the mean row length,
// between 2 and 32. Each lane then loads about four entries of its row, independent loads in flight at
// once, and a warp works on several rows. A group as wide as the row (one load a lane, one row a group)
// waits on the chain row offsets -> columns -> x once per row: it was 1.4-2.1x slower from 8 to 64 entries
// (the same from 128, where both give 32). Timed with every width (same machine and day): the best was 2 at
// 8 and 12 entries, 4 at 16 and 24, 8 at 32 and 48, 16 at 64, 32 at 128 and 256, which is this rule (Kokkos
// Kernels' own vector-length rule, doubled while 6 x length < the mean row, gives the same widths there).
constexpr int spmv_group_width(std::int64_t rows, std::int64_t nnz) noexcept {
  return spmv_power_of_two_at_most(spmv_mean_row_length(rows, nnz) / 4, 2);
}

// The portable lanes_per_row's vector length: the power of two at or below an eighth of the mean row length,
// between 4 and 32. Timed at every length 2 ... 32 with the team size Kokkos recommends (H200, Kokkos 4.7.01,
// banded rows of 8 ... 128 entries; the folder above): the best was 4 from 16 to 64 entries (93 µs at 32,
// where a vector as long as the row, the rule before, took 153) and 16-32 at 128, within 1.5 % of this rule
// everywhere. Two lanes never beat both a row per thread and four lanes. The team size stays Kokkos'
// recommendation (128 threads a team at every length here; other team sizes are not timed yet).
constexpr int spmv_vector_length(std::int64_t rows, std::int64_t nnz) noexcept {
  return spmv_power_of_two_at_most(spmv_mean_row_length(rows, nnz) / 8, 4);
}

// The row a call of `half` runs: `strategy` itself, or for `automatic` a row per thread on CPU backends (a
// thread reads its rows' entries in order from its own cache; there are no lanes to share them) and on a GPU
// (on_gpu) lanes_per_row from a mean row length of spmv_long_rows(half).
constexpr spmv_strategy spmv_choice(spmv_strategy strategy, strategy_half half, bool on_gpu, std::int64_t rows,
                                    std::int64_t nnz) noexcept {
  if (strategy != spmv_strategy::automatic) return strategy;
  return on_gpu && spmv_mean_row_length(rows, nnz) >= spmv_long_rows(half) ? spmv_strategy::lanes_per_row
                                                                           : spmv_strategy::row_per_thread;
}

// A strategy past the rows, or one the half does not run, is refused naming the half's rows.
inline void check_spmv_strategy(const char* where, spmv_strategy strategy, strategy_half half) {
  check_argument(is_known(strategy), where, "strategy = ", static_cast<int>(strategy), " is not a spmv_strategy (",
                 names_of_half<spmv_strategy>{half}, ")");
  check_argument(runs_in(strategy, half), where, "strategy = ", to_string(strategy), " is not run here; ", where,
                 " runs ", names_of_half<spmv_strategy>{half});
}

// y = A x reads x while y is written, by other threads: the two must not share a byte.
inline void check_spmv_disjoint(const char* where, const void* x, std::size_t x_bytes, const void* y,
                                std::size_t y_bytes) {
  const auto x_begin = reinterpret_cast<std::uintptr_t>(x);
  const auto y_begin = reinterpret_cast<std::uintptr_t>(y);
  const bool overlap = x_bytes > 0 && y_bytes > 0 && x_begin < y_begin + y_bytes && y_begin < x_begin + x_bytes;
  check_argument(!overlap, where, "y overlaps x (y = A x reads x while y is written)");
}

}  // namespace ksync::detail
