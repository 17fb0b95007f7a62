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

// The mean row length (nnz / rows, rounded up) from which `automatic` runs lanes_per_row on a GPU. Below it a
// row per thread: a row of the stencil matrices (5 or 7 entries: 40-56 bytes of double values, 20-28 of
// 32-bit columns) lies in one or two 32-byte sectors that the thread's next loads find in L1, and a group of
// lanes would leave most of its lanes idle and add a shuffle tree per row. From 16 entries a row's values
// fill a 128-byte line: a warp of row_per_thread then touches 32 lines per load, 6 KiB of values and columns
// per warp in flight, and 64 resident warps need more than an H200 multiprocessor's 256 KiB of L1 to keep
// them, so lines are fetched again; 16 lanes read such a row in one coalesced access instead. Kokkos Kernels'
// own rule (a vector length doubled while vector_length * 6 < nnz / rows) widens earlier, at 7. Measured
// (docs/solvers.md, "Sparse matrix-vector product"): a row per thread wins at 5 and 7 entries, lanes per row at
// 256; between them the cross-over is not timed yet.
inline constexpr std::int64_t spmv_long_rows = 16;

// The mean row length rounded up (0 for a matrix without rows).
constexpr std::int64_t spmv_mean_row_length(std::int64_t rows, std::int64_t nnz) noexcept {
  return rows > 0 ? (nnz + rows - 1) / rows : 0;
}

// lanes_per_row's group width (portable: the vector length; native: the lanes sharing a row): the power of
// two from the mean row length up, between 2 and 32 (a warp), so that a mean row is one pass of the group.
constexpr int spmv_group_width(std::int64_t rows, std::int64_t nnz) noexcept {
  const std::int64_t mean = spmv_mean_row_length(rows, nnz);
  int width = 2;
  while (width < 32 && width < mean)
    width *= 2;
  return width;
}

// The row a call runs: `strategy` itself, or for `automatic` a row per thread on CPU backends (a thread reads
// its rows' entries in order from its own cache; there are no lanes to share them) and on a GPU
// (on_gpu) lanes_per_row from a mean row length of spmv_long_rows.
constexpr spmv_strategy spmv_choice(spmv_strategy strategy, bool on_gpu, std::int64_t rows, std::int64_t nnz) noexcept {
  if (strategy != spmv_strategy::automatic) return strategy;
  return on_gpu && spmv_mean_row_length(rows, nnz) >= spmv_long_rows ? spmv_strategy::lanes_per_row
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
