// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::parallel_for — f(i) for every i in [0, n), hand-written in CUDA; the portable twin is
// ksync::parallel_for (src/ksync/parallel_for.hpp). Include from .cu files: `f` is a device functor (a
// __device__ lambda, or a struct with a __device__ operator()(Index) const).
//
//   parallel_for(stream, n, f[, strategy])                     asynchronous: enqueued on `stream`, nothing
//                                                              synchronized.
//   parallel_for(stream, rows, cols, f[, strategy[, order]])   the same for f(i, j), i < rows, j < cols.
//
// n is an int32 or an int64 (f receives that type: n >= 2^31 needs int64). f is called exactly once for
// each index, in no particular order and with no barrier between calls: an index's work must not depend on
// another's. The strategies (how indices map to threads) are rows of ksync::index_strategy, one file each
// in detail/parallel/. The 2-D form runs the same strategies over the flat index k in [0, rows * cols)
// (ksync/detail/index_pair.hpp): neighbouring threads step through j (order = iterate::right, the default:
// a C array a[rows][cols]) or i (iterate::left); rows * cols must fit the index type.
#pragma once

#include <ksync/cuda/detail/parallel/strategies.cuh>
#include <ksync/detail/arguments.hpp>
#include <ksync/detail/index_pair.hpp>
#include <ksync/index_strategy.hpp>

#include <concepts>
#include <cstdint>
#include <type_traits>

namespace ksync::cuda {

// Asynchronous: enqueues f(i) for i in [0, n) on `stream`. Throws std::invalid_argument for a negative n
// or a strategy this half does not implement; ksync::cuda::cuda_error when the launch fails.
template <class Index, class F>
void parallel_for(cudaStream_t stream, Index n, const F& f, index_strategy strategy = index_strategy::automatic) {
  static_assert(std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t>,
                "ksync::cuda::parallel_for: n must be an std::int32_t or an std::int64_t (f receives that type)");
  static_assert(std::is_invocable_v<const F&, Index>,
                "ksync::cuda::parallel_for: f must be callable as f(i) with the index type of n");
  constexpr const char* where = "ksync::cuda::parallel_for";
  detail::check_argument(n >= 0, where, "n = ", n, " is negative");
  detail::check_argument(runs_in(strategy, strategy_half::native), where, "strategy = ", to_string(strategy), " (",
                         static_cast<int>(strategy), ") is not one of ksync::cuda's (",
                         names_of_half<index_strategy>{strategy_half::native}, ")");
  if (n == 0) return;
  detail::native_index_strategies::dispatch(where, detail::native_index_choice(strategy, n),
                                            [&]<class Strategy>() { Strategy::launch(stream, n, f); });
}

// Asynchronous: enqueues f(i, j) for i in [0, rows) and j in [0, cols) on `stream`, neighbouring threads
// stepping through the index `order` names. Throws std::invalid_argument for a negative extent, a product
// that does not fit Index, an unknown order, or a strategy this half does not implement.
template <class Index, std::integral Cols, class F>
void parallel_for(cudaStream_t stream, Index rows, Cols cols, const F& f,
                  index_strategy strategy = index_strategy::automatic, iterate order = iterate::right) {
  static_assert(
      std::is_same_v<Index, Cols> && (std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t>),
      "ksync::cuda::parallel_for: rows and cols must both be std::int32_t or both std::int64_t (f "
      "receives that type)");
  static_assert(std::is_invocable_v<const F&, Index, Index>,
                "ksync::cuda::parallel_for: f must be callable as f(i, j) with the index type of rows and cols");
  constexpr const char* where = "ksync::cuda::parallel_for";
  const Index n = ksync::detail::checked_pair_count(where, rows, cols);
  ksync::detail::check_iterate(where, order);
  ksync::detail::with_iterate(order, [&]<iterate Order>() {
    ksync::cuda::parallel_for(stream, n, ksync::detail::make_index_pair_for<Order>(f, rows, cols), strategy);
  });
}

}  // namespace ksync::cuda
