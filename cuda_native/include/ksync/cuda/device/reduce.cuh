// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The kernels behind ksync::cuda::reduce / dot (device/reduce.hpp), and ksync::cuda::transform_reduce for
// CUDA translation units that reduce f(x) with their own device functor f. Include from .cu files only.
//
//   transform_reduce(stream, data, n, op, f, strategy, result[, tuning])  asynchronous, into *result
//   auto r = transform_reduce(stream, data, n, op, f[, strategy, tuning]) blocking; waits on `stream` only
//
// One kernel template serves every strategy (detail/reduce/kernel.cuh: read, block, then the strategy's
// finish); each strategy is one file of detail/reduce/ and one row of the table in detail/reduce/strategies.cuh.
#pragma once

#include <ksync/cuda/detail/readers.cuh>
#include <ksync/cuda/detail/reduce/strategies.cuh>
#include <ksync/cuda/device/reduce.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/ops.hpp>

#include <cstddef>
#include <utility>

namespace ksync::cuda {

namespace detail {

// Runs launch.template operator()<B>() for the entry B of reduce_block_sizes that equals block_size. The
// kernels compiled are the list's entries, the ones check_reduce_arguments accepts, so the check and the
// dispatch cannot drift apart.
template <class Launch, std::size_t... Index>
void with_block_size(int block_size, const Launch& launch, std::index_sequence<Index...> /*reduce_block_sizes*/) {
  ((block_size == reduce_block_sizes[Index] ? launch.template operator()<reduce_block_sizes[Index]>() : void()), ...);
}

// Enqueues op(reader[0, n)) into `result`: the one entry point of every native reduction. The arguments were
// checked by check_reduce_arguments (a native strategy or automatic; a block size of reduce_block_sizes). The
// strategy's row of native_reduce_strategies (detail/reduce/strategies.cuh) launches it.
template <class Reader, class Op>
void enqueue_reduce(cudaStream_t stream, const Reader& reader, std::size_t n, Op op, reduce_strategy strategy,
                    reduce_target<typename Reader::value_type> result, const reduce_tuning& tuning) {
  check_argument(result.value != nullptr, "ksync::cuda::reduce", "result is null");
  const auto launch = [&]<int BlockSize>() {
    native_reduce_strategies::dispatch("ksync::cuda::reduce", native_choice(strategy), [&]<class Strategy>() {
      Strategy::template launch<BlockSize>(stream, reader, n, op, result, tuning);
    });
  };
  with_block_size(tuning.block_size, launch, std::make_index_sequence<reduce_block_sizes.size()>{});
}

template <class T, class Transform>
void enqueue_transform_reduce(cudaStream_t stream, const T* data, std::size_t n, reduce_op op, Transform f,
                              reduce_strategy strategy, reduce_target<T> result, const reduce_tuning& tuning) {
  const elements_reader<T, Transform> reader{data, f, aligned16(data)};
  with_operator(op, [&](auto functor) { enqueue_reduce(stream, reader, n, functor, strategy, result, tuning); });
}
}  // namespace detail

// Asynchronous: enqueues op(f(data[0]), ..., f(data[n-1])) into *result on `stream`. `f` is a device
// functor from T to T (a __device__ lambda, or a struct with a __device__ operator()).
template <class T, class Transform>
void transform_reduce(cudaStream_t stream, const T* data, std::size_t n, reduce_op op, Transform f,
                      reduce_strategy strategy, T* result, const reduce_tuning& tuning = {}) {
  static_assert(is_value_type_v<T>, "ksync::cuda::transform_reduce supports int32, int64, float and double");
  detail::check_reduce_arguments("ksync::cuda::transform_reduce", data, data, n, strategy, tuning);
  detail::enqueue_transform_reduce(stream, data, n, op, f, strategy, {.value = result}, tuning);
}

// Blocking: returns op over f(data[i]), waiting on `stream` only (ksync/cuda/mailbox.hpp).
template <class T, class Transform>
[[nodiscard]] T transform_reduce(cudaStream_t stream, const T* data, std::size_t n, reduce_op op, Transform f,
                                 reduce_strategy strategy = reduce_strategy::automatic,
                                 const reduce_tuning& tuning = {}) {
  static_assert(is_value_type_v<T>, "ksync::cuda::transform_reduce supports int32, int64, float and double");
  detail::check_reduce_arguments("ksync::cuda::transform_reduce", data, data, n, strategy, tuning);
  return detail::blocking_result<T>(
      stream, detail::result_is_one_store(strategy), [&](detail::reduce_target<T> target) {
        detail::enqueue_transform_reduce(stream, data, n, op, f, strategy, target, tuning);
      });
}

}  // namespace ksync::cuda
