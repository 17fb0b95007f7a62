// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::parallel_reduce — f(i, acc) for every i in [0, n), folded by one of the native reductions'
// strategies; the portable twin is ksync::parallel_reduce (src/ksync/parallel_reduce.hpp), which reaches this
// one on Kokkos::Cuda when given a native reduce_strategy. Include from .cu files: `f` is a device functor (a
// __device__ lambda, or a struct with a __device__ operator()(Index, T&) const).
//
//   parallel_reduce(stream, n, f, T* result[, strategy, op, tuning])  asynchronous: *result (device memory)
//                                                                      receives the value in stream order
//   parallel_reduce(stream, n, f, T& result[, strategy, op, tuning])  blocking: result (a host scalar) receives
//                                                                      it; waits on `stream` only (the mailbox)
//   parallel_reduce(stream, rows, cols, f, result[, strategy, op, tuning, order])
//                                                                      the same for f(i, j, acc), i < rows, j < cols
//
// acc starts at op's identity (0 for sums; for min and max as ksync::cuda::reduce says) and f folds index i's
// term into it (acc += ..., or acc = min(acc, ...)), as Kokkos' parallel_reduce asks of its functors; the
// per-index values are then combined with op. n is an int32 or an int64 (f receives that type). T: int32,
// int64, float or double. f is called exactly once for each index and must not store to memory another
// index reads. The strategies are reduce_strategy's native rows (two_pass, last_block, grid_sync, cluster,
// atomics; automatic = last_block): each thread folds a grid-stride slice of indices into four independent
// accumulators (four terms' loads in flight), a block combines its threads with warp shuffles, and the
// strategy combines the blocks. The rounding bound of a float sum is ksync::cuda::reduce's (device/reduce.hpp).
// The 2-D form takes the 1-D form's arguments with the order appended, and runs it over the flat index k in
// [0, rows * cols) (ksync/detail/index_pair.hpp): neighbouring threads step through j (iterate::right, the
// default: a C array a[rows][cols]) or i (iterate::left), and the terms are combined in k's order, as the
// 1-D form combines i's; rows * cols must fit the index type.
#pragma once

#include <ksync/cuda/device/reduce.cuh>
#include <ksync/detail/index_pair.hpp>
#include <ksync/index_strategy.hpp>

#include <concepts>
#include <cstdint>
#include <type_traits>

namespace ksync::cuda {

namespace detail {

template <class T, class Index, class F>
void check_parallel_reduce_arguments(Index n, const T* result, reduce_strategy strategy, const reduce_tuning& tuning) {
  static_assert(std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t>,
                "ksync::cuda::parallel_reduce: n must be an std::int32_t or an std::int64_t (f receives that type)");
  static_assert(std::is_invocable_v<const F&, Index, T&>,
                "ksync::cuda::parallel_reduce: f must be callable as f(i, acc) with the index type of n and the "
                "result's value type");
  constexpr const char* where = "ksync::cuda::parallel_reduce";
  check_argument(n >= 0, where, "n = ", n, " is negative");
  check_argument(result != nullptr, where, "result is null");
  // No data pointers to check (n = 0 here): f reads its own.
  check_reduce_arguments(where, nullptr, nullptr, 0, strategy, tuning);
}

// Enqueues the reduction with the operator functor `op` (plus, minimum, maximum) into `result`.
template <class T, class Index, class F, class Op>
void enqueue_parallel_reduce(cudaStream_t stream, Index n, const F& f, Op op, reduce_strategy strategy,
                             reduce_target<T> result, const reduce_tuning& tuning) {
  const index_terms_reader<T, Index, F, Op> reader{f};
  enqueue_reduce(stream, reader, static_cast<std::size_t>(n), op, strategy, result, tuning);
}
// Enqueues (into T*) or brings home (into a host T&) the reduction with the operator functor `op`, arguments
// checked: the public forms below after their run-time switch, and the portable bridge, whose operator is
// known at compile time (only that operator's kernels are instantiated).
template <class T, class Index, class F, class Op>
  requires is_value_type_v<T>
void run_parallel_reduce(cudaStream_t stream, Index n, const F& f, T* result, reduce_strategy strategy, Op op,
                         const reduce_tuning& tuning) {
  enqueue_parallel_reduce(stream, n, f, op, strategy, reduce_target<T>{.value = result}, tuning);
}
template <class T, class Index, class F, class Op>
  requires is_value_type_v<T>
void run_parallel_reduce(cudaStream_t stream, Index n, const F& f, T& result, reduce_strategy strategy, Op op,
                         const reduce_tuning& tuning) {
  result = blocking_result<T>(stream, result_is_one_store(strategy), [&](reduce_target<T> target) {
    enqueue_parallel_reduce(stream, n, f, op, strategy, target, tuning);
  });
}

// The 2-D forms' checks, then run(n, g) with n = rows * cols and g(k, acc) the flat functor over f(i, j, acc)
// in `order` (one kernel per order).
template <class T, class Index, class Cols, class F, class Run>
void with_pair_reduce(Index rows, Cols cols, const F& f, iterate order, Run&& run) {
  static_assert(
      std::is_same_v<Index, Cols> && (std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t>),
      "ksync::cuda::parallel_reduce: rows and cols must both be std::int32_t or both std::int64_t (f receives "
      "that type)");
  static_assert(std::is_invocable_v<const F&, Index, Index, T&>,
                "ksync::cuda::parallel_reduce: f must be callable as f(i, j, acc) with the index type of rows and "
                "cols and the result's value type");
  constexpr const char* where = "ksync::cuda::parallel_reduce";
  const Index n = ksync::detail::checked_pair_count(where, rows, cols);
  ksync::detail::check_iterate(where, order);
  ksync::detail::with_iterate(order, [&]<iterate Order>() {
    run(n, ksync::detail::make_index_pair_reduce<Order>(f, rows, static_cast<Index>(cols)));
  });
}

}  // namespace detail

// Asynchronous: enqueues op over the terms f(i, acc), i in [0, n), into *result on `stream`. Throws
// std::invalid_argument for a negative n, a strategy this half does not implement or a tuning knob out of
// range; ksync::cuda::cuda_error when a CUDA call fails.
template <class T, class Index, class F>
  requires is_value_type_v<T>
void parallel_reduce(cudaStream_t stream, Index n, const F& f, T* result,
                     reduce_strategy strategy = reduce_strategy::automatic, reduce_op op = reduce_op::sum,
                     const reduce_tuning& tuning = {}) {
  detail::check_parallel_reduce_arguments<T, Index, F>(n, result, strategy, tuning);
  with_operator(op,
                [&](auto functor) { detail::run_parallel_reduce(stream, n, f, result, strategy, functor, tuning); });
}

// Blocking: `result` receives op over the terms once `stream` has computed it; nothing else is synchronized.
template <class T, class Index, class F>
  requires is_value_type_v<T>
void parallel_reduce(cudaStream_t stream, Index n, const F& f, T& result,
                     reduce_strategy strategy = reduce_strategy::automatic, reduce_op op = reduce_op::sum,
                     const reduce_tuning& tuning = {}) {
  detail::check_parallel_reduce_arguments<T, Index, F>(n, &result, strategy, tuning);
  with_operator(op,
                [&](auto functor) { detail::run_parallel_reduce(stream, n, f, result, strategy, functor, tuning); });
}

// The 2-D forms: rows and cols of one index type, f(i, j, acc); asynchronous into *result, or blocking into a
// host scalar, as the 1-D forms above. Throws std::invalid_argument for a negative extent, a product that
// does not fit the index type, an unknown order, or what the 1-D form refuses.
template <class T, class Index, std::integral Cols, class F>
  requires is_value_type_v<T>
void parallel_reduce(cudaStream_t stream, Index rows, Cols cols, const F& f, T* result,
                     reduce_strategy strategy = reduce_strategy::automatic, reduce_op op = reduce_op::sum,
                     const reduce_tuning& tuning = {}, iterate order = iterate::right) {
  detail::with_pair_reduce<T>(rows, cols, f, order, [&](Index n, const auto& flat) {
    ksync::cuda::parallel_reduce(stream, n, flat, result, strategy, op, tuning);
  });
}

template <class T, class Index, std::integral Cols, class F>
  requires is_value_type_v<T>
void parallel_reduce(cudaStream_t stream, Index rows, Cols cols, const F& f, T& result,
                     reduce_strategy strategy = reduce_strategy::automatic, reduce_op op = reduce_op::sum,
                     const reduce_tuning& tuning = {}, iterate order = iterate::right) {
  detail::with_pair_reduce<T>(rows, cols, f, order, [&](Index n, const auto& flat) {
    ksync::cuda::parallel_reduce(stream, n, flat, result, strategy, op, tuning);
  });
}

}  // namespace ksync::cuda
