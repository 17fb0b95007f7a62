// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::transform — out[i] = f(in[i]) for i in [0, n), hand-written in CUDA; the portable twin is
// ksync::transform (src/ksync/transform.hpp). Include from .cu files: `f` is a device functor.
//
//   transform(stream, in, n, out, f[, tuning])  asynchronous: enqueued on `stream`, nothing synchronized.
//
// By default one 16-byte pack per thread when `in` and `out` are 16-byte aligned and their element types
// have the same size (one element otherwise), as many blocks as that takes; transform_tuning gives more per
// thread, or a grid-stride loop over the resident blocks with two 16-byte loads in flight. No barrier:
// every element is read and written by one thread. `in` and `out` may be the same array (in place); arrays
// that overlap otherwise are rejected. Indices are 64-bit.
#pragma once

#include <ksync/cuda/detail/readers.cuh>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/grid/stride.cuh>
#include <ksync/cuda/runtime.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ksync::cuda {

struct transform_tuning {
  int block_size = 256;  // threads per block, 32 to 1024
  // The grid: items_per_thread > 0 sizes it so each thread moves that many 16-byte packs (elements when the
  // arrays are not aligned), as many blocks as that takes; 0 caps it at blocks_per_sm blocks per
  // multiprocessor and loops over the data (grid-stride). One pack per thread is the default because it
  // ran at the device copy's bandwidth at every size where the grid-stride loop fell short from 2^24
  // floats up (the figures: docs/reductions.md, "Native transform").
  int items_per_thread = 1;
  int blocks_per_sm = 0;          // items_per_thread = 0 only: 0 is as many as can be resident
  bool streaming_stores = false;  // st.global.cs: written lines are evicted first (data not read again soon)
};

namespace detail {

// Whether transform moves In -> Out in 16-byte packs (when both arrays are 16-byte aligned): one pack of
// each must hold the same number of elements, and load_pack16 handles 4- and 8-byte types.
template <class In, class Out>
inline constexpr bool moves_packs_v = sizeof(In) == sizeof(Out) && (sizeof(In) == 4 || sizeof(In) == 8);

template <class In, class Out, class F>
__global__ void transform_kernel(const In* in, std::size_t n, Out* out, F f, bool vectorized, bool streaming_stores) {
  const auto threads = static_cast<std::size_t>(grid_stride());
  const auto thread = static_cast<std::size_t>(grid_stride_begin());
  std::size_t scalar_begin = 0;
  if constexpr (moves_packs_v<In, Out>) {
    if (vectorized) {
      constexpr int width = pack16<In>::width;
      const std::size_t packs = n / width;
      const auto map = [&](const pack16<In>& source) {
        pack16<Out> target;
#pragma unroll
        for (int k = 0; k < width; ++k)
          target.value[k] = f(source.value[k]);
        return target;
      };
      const auto store = [&](std::size_t p, const pack16<Out>& target) {
        store_pack16(out + p * width, target, streaming_stores);
      };
      const auto apply = [&](std::size_t p) { store(p, map(load_pack16(in + p * width))); };
      std::size_t p = thread;
      for (; p + threads < packs; p += 2 * threads) {
        // Both loads before either store: `in` and `out` may be one array (in place), so the compiler may
        // not move a load above a store itself, and one load at a time leaves the memory system idle.
        const pack16<In> first = load_pack16(in + p * width);
        const pack16<In> second = load_pack16(in + (p + threads) * width);
        store(p, map(first));
        store(p + threads, map(second));
      }
      if (p < packs) apply(p);
      scalar_begin = packs * width;
    }
  }
  for (std::size_t i = scalar_begin + thread; i < n; i += threads)
    out[i] = f(in[i]);
}

}  // namespace detail

// Asynchronous: enqueues out[i] = f(in[i]) for i in [0, n) on `stream`. Throws std::invalid_argument for
// null arrays with n > 0, partly overlapping arrays and tuning out of range; ksync::cuda::cuda_error when a
// CUDA call fails.
template <class In, class Out, class F>
void transform(cudaStream_t stream, const In* in, std::size_t n, Out* out, F f, const transform_tuning& tuning = {}) {
  constexpr const char* where = "ksync::cuda::transform";
  detail::check_argument(in != nullptr || n == 0, where, "in is null but n = ", n);
  detail::check_argument(out != nullptr || n == 0, where, "out is null but n = ", n);
  detail::check_argument(tuning.block_size >= 32 && tuning.block_size <= 1024, where,
                         "tuning.block_size = ", tuning.block_size, " is outside [32, 1024]");
  detail::check_argument(tuning.items_per_thread >= 0, where, "tuning.items_per_thread = ", tuning.items_per_thread,
                         " is negative");
  detail::check_argument(tuning.blocks_per_sm >= 0, where, "tuning.blocks_per_sm = ", tuning.blocks_per_sm,
                         " is negative");
  if (n == 0) return;
  const auto in_begin = reinterpret_cast<std::uintptr_t>(in);
  const auto out_begin = reinterpret_cast<std::uintptr_t>(out);
  const bool disjoint = in_begin + n * sizeof(In) <= out_begin || out_begin + n * sizeof(Out) <= in_begin;
  detail::check_argument(disjoint || (in_begin == out_begin && sizeof(In) == sizeof(Out)), where,
                         "in and out overlap without being the same array (in = ", static_cast<const void*>(in),
                         ", out = ", static_cast<const void*>(out), ", n = ", n, ")");
  const auto kernel = detail::transform_kernel<In, Out, F>;
  const bool vectorized = detail::aligned16(in) && detail::aligned16(out);
  const auto block_size = static_cast<std::size_t>(tuning.block_size);
  std::size_t blocks = 0;
  if (tuning.items_per_thread > 0) {
    const bool packed = vectorized && detail::moves_packs_v<In, Out>;
    const std::size_t width = packed ? 16 / sizeof(In) : 1;
    const std::size_t items = n / width + n % width;  // packs, then the tail element by element
    const std::size_t per_block = block_size * static_cast<std::size_t>(tuning.items_per_thread);
    blocks = (items + per_block - 1) / per_block;
    detail::check_argument(blocks <= 0x7fffffffU, where, "tuning.items_per_thread = ", tuning.items_per_thread,
                           " needs ", blocks, " blocks for n = ", n, "; the grid holds 2^31 - 1");
  } else {
    const int device = stream_device(stream);
    int blocks_per_sm = tuning.blocks_per_sm;
    if (blocks_per_sm == 0) {
      KSYNC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, tuning.block_size, 0));
      blocks_per_sm = std::max(1, blocks_per_sm);
    }
    const std::size_t needed = (n + block_size - 1) / block_size;
    blocks = std::min(needed,
                      static_cast<std::size_t>(blocks_per_sm) * static_cast<std::size_t>(multiprocessor_count(device)));
  }
  kernel<<<static_cast<unsigned int>(blocks), tuning.block_size, 0, stream>>>(in, n, out, f, vectorized,
                                                                              tuning.streaming_stores);
  KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::transform");
}

}  // namespace ksync::cuda
