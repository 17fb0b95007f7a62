// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::reverse — reverses n values of any count, with blocks of any size from 1 to 1024 (not only
// powers of two). Each block moves one tile of blockDim.x elements through shared memory, so both the read
// and the write are contiguous. The portable twin is ksync::reverse.
//   reverse(stream, in, out, n, block_size)  out-of-place: out[i] = in[n-1-i]; in and out must not overlap
//   reverse(stream, data, n, block_size)     in place: block b swaps tile b of the front half with its
//                                            mirror in the back half
#pragma once

#include <ksync/cuda/value_types.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace ksync::cuda {

namespace detail {
template <class T>
void reverse(cudaStream_t stream, const T* in, T* out, std::size_t n, int block_size);
template <class T>
void reverse_in_place(cudaStream_t stream, T* data, std::size_t n, int block_size);
}  // namespace detail

// Asynchronous on `stream`. Throws std::invalid_argument for a block size outside [1, 1024], null pointers
// with n > 0, or overlapping in and out.
template <class T>
void reverse(cudaStream_t stream, const T* in, T* out, std::size_t n, int block_size = 256) {
  static_assert(is_value_type_v<T>, "ksync::cuda::reverse supports int32, int64, float and double");
  detail::reverse(stream, in, out, n, block_size);
}

template <class T>
void reverse(cudaStream_t stream, T* data, std::size_t n, int block_size = 256) {
  static_assert(is_value_type_v<T>, "ksync::cuda::reverse supports int32, int64, float and double");
  detail::reverse_in_place(stream, data, n, block_size);
}

}  // namespace ksync::cuda
