// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::reduce — the sum of n device-resident values, hand-written in CUDA. The portable twin is
// ksync::reduce (src/ksync/reduce.hpp). Plain C++ header: callable from host code compiled by any compiler.
//
//   ksync::cuda::reduce(stream, data, n, result)  asynchronous: *result (device memory) receives the sum in
//                                                 stream order; nothing is synchronized.
//   auto s = ksync::cuda::reduce(stream, data, n) blocking: returns the sum; synchronizes `stream` only.
//
// Strategy (seed 001): pass 1 — each block sums a grid-stride slice per thread, then combines its threads
// with block::reduce_tree; one partial per block. Pass 2 — one block reduces the partials. The grid is
// sized to the blocks that can be resident at once, so pass 2 reads at most a few thousand partials.
// Scratch comes from ksync's stream-ordered pool (detail::scratch_pool), so calls on different streams are
// independent and, after the first call, cost no real allocation. Supported value types: int32, int64, float, double.
#pragma once

#include <ksync/cuda/detail/value_types.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace ksync::cuda {

namespace detail {
template <class T>
void reduce_sum(cudaStream_t stream, const T* data, std::size_t n, T* result);
template <class T>
T reduce_sum_blocking(cudaStream_t stream, const T* data, std::size_t n);
}  // namespace detail

// Asynchronous: enqueues the sum of data[0, n) into *result on `stream`. `data` and `result` are device
// (or managed) pointers; `data` may be null only when n == 0. Throws std::invalid_argument for bad
// arguments and ksync::cuda::cuda_error when a CUDA call fails.
template <class T>
void reduce(cudaStream_t stream, const T* data, std::size_t n, T* result) {
  static_assert(is_value_type_v<T>, "ksync::cuda::reduce supports int32, int64, float and double");
  detail::reduce_sum(stream, data, n, result);
}

// Blocking: returns the sum of data[0, n); synchronizes `stream` (and nothing else) before returning.
template <class T>
[[nodiscard]] T reduce(cudaStream_t stream, const T* data, std::size_t n) {
  static_assert(is_value_type_v<T>, "ksync::cuda::reduce supports int32, int64, float and double");
  return detail::reduce_sum_blocking(stream, data, n);
}

}  // namespace ksync::cuda
