// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::segment_reduce — one block per segment of `segment_size` consecutive values (the block size
// is the segment size), each reduced with a block-scope form from block/reduce.cuh (segment_form::tree or
// shuffle, ksync/types.hpp; one file each in detail/segment_reduce/):
//   out[s] = op(data[s*segment_size], ..., data[min((s+1)*segment_size, n) - 1]),  s < ceil(n / segment_size)
// The last segment may be short: its missing elements are the operator's identity (data bound), while all
// of the block's threads still take part in its barriers (participation bound). The portable twin is
// ksync::segment_reduce.
#pragma once

#include <ksync/cuda/value_types.hpp>
#include <ksync/types.hpp>

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>

namespace ksync::cuda {

// The block reductions are templates on the block size; these are the sizes compiled in: powers of two,
// a multiple of 32 that is not one (96), and one that is not a multiple of 32 (100: a partial last warp).
inline constexpr std::array<int, 6> segment_reduce_sizes{32, 96, 100, 128, 256, 1024};

namespace detail {
template <class T>
void segment_reduce(cudaStream_t stream, const T* data, std::size_t n, int segment_size, reduce_op op,
                    segment_form form, T* out);
}

// Asynchronous on `stream`; `out` holds ceil(n / segment_size) values. Throws std::invalid_argument for a
// portable form, a segment size not in segment_reduce_sizes or null pointers with n > 0.
template <class T>
void segment_reduce(cudaStream_t stream, const T* data, std::size_t n, int segment_size, reduce_op op,
                    segment_form form, T* out) {
  static_assert(is_value_type_v<T>, "ksync::cuda::segment_reduce supports int32, int64, float and double");
  detail::segment_reduce(stream, data, n, segment_size, op, form, out);
}

}  // namespace ksync::cuda
