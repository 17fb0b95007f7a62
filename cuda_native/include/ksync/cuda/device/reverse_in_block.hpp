// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::reverse_in_block — the participation-bound worked example (docs/glossary.md), exactly: one
// block of 128 threads reverses n <= 128 values through shared memory. Threads t < n load in[t] into their
// own slot, the others write the value type's zero; all 128 reach the same __syncthreads(); threads t < n
// write out[t] = s[n-1-t]. The data bound (n) guards loads and stores; the participation bound (128) is the
// whole block. It is not a multi-block reverse: for any n, see device/reverse.hpp. The portable twin is
// ksync::reverse_in_block.
#pragma once

#include <ksync/cuda/value_types.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace ksync::cuda {

inline constexpr std::size_t reverse_in_block_capacity = 128;

namespace detail {
template <class T>
void reverse_in_block(cudaStream_t stream, const T* in, T* out, std::size_t n);
}

// Asynchronous on `stream`. Throws std::invalid_argument when n > 128 or a pointer is null while n > 0.
template <class T>
void reverse_in_block(cudaStream_t stream, const T* in, T* out, std::size_t n) {
  static_assert(is_value_type_v<T>, "ksync::cuda::reverse_in_block supports int32, int64, float and double");
  detail::reverse_in_block(stream, in, out, n);
}

}  // namespace ksync::cuda
