// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/device/reverse.hpp>
#include <ksync/cuda/error.hpp>

#include <climits>
#include <cstdint>

namespace ksync::cuda::detail {
namespace {

// Dynamic shared memory, typed: one tile per block (two for the in-place swap).
template <class T>
__device__ T* shared_tiles() {
  extern __shared__ unsigned char shared_bytes[];
  return reinterpret_cast<T*>(shared_bytes);
}

// Block b writes out[b*B, b*B + len) from the mirrored input segment, read contiguously.
template <class T>
__global__ void reverse_tiles(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  T* tile = shared_tiles<T>();
  const std::size_t tile_size = blockDim.x;
  const std::size_t out_begin = static_cast<std::size_t>(blockIdx.x) * tile_size;
  const std::size_t len = n - out_begin < tile_size ? n - out_begin : tile_size;  // the last tile may be short
  const std::size_t in_begin = n - out_begin - len;
  const std::size_t t = threadIdx.x;
  if (t < len) tile[t] = in[in_begin + t];  // data bound: len
  // Participation: every thread of the block, also those past len in a short last tile. Data: tile[0, len).
  // Publishes the tile to the threads that write its mirror image.
  __syncthreads();
  if (t < len) out[out_begin + t] = tile[len - 1 - t];
}

// Block b swaps tile b of the front half, [b*B, b*B + len), with its mirror [n - b*B - len, n - b*B).
template <class T>
__global__ void reverse_tiles_in_place(T* data, std::size_t n) {
  T* front = shared_tiles<T>();
  T* back = front + blockDim.x;
  const std::size_t tile_size = blockDim.x;
  const std::size_t half = n / 2;  // an odd n leaves its middle element where it is
  const std::size_t begin = static_cast<std::size_t>(blockIdx.x) * tile_size;
  const std::size_t len = half - begin < tile_size ? half - begin : tile_size;
  const std::size_t mirror = n - begin - len;
  const std::size_t t = threadIdx.x;
  if (t < len) {  // data bound: len
    front[t] = data[begin + t];
    back[t] = data[mirror + t];
  }
  // Participation: every thread of the block. Data: front[0, len) and back[0, len). Publishes both tiles
  // before any thread overwrites the global values they were read from.
  __syncthreads();
  if (t < len) {
    data[begin + t] = back[len - 1 - t];
    data[mirror + t] = front[len - 1 - t];
  }
}

void check_block_size(int block_size) {
  check_argument(block_size >= 1 && block_size <= 1024, "ksync::cuda::reverse", "block_size = ", block_size,
                 " is outside [1, 1024]");
}

unsigned grid_for(std::size_t elements, int block_size) {
  const std::size_t blocks =
      (elements + static_cast<std::size_t>(block_size) - 1) / static_cast<std::size_t>(block_size);
  check_argument(blocks <= static_cast<std::size_t>(INT_MAX), "ksync::cuda::reverse", "n needs ", blocks, " blocks of ",
                 block_size, ", more than a grid holds; use a larger block_size");
  return static_cast<unsigned>(blocks);
}

}  // namespace

template <class T>
void reverse(cudaStream_t stream, const T* in, T* out, std::size_t n, int block_size) {
  check_block_size(block_size);
  if (in == out) {
    reverse_in_place(stream, out, n, block_size);
    return;
  }
  check_argument((in != nullptr && out != nullptr) || n == 0, "ksync::cuda::reverse", "in or out is null but n = ", n);
  const auto in_address = reinterpret_cast<std::uintptr_t>(in);
  const auto out_address = reinterpret_cast<std::uintptr_t>(out);
  const std::uintptr_t bytes = n * sizeof(T);
  check_argument(in_address + bytes <= out_address || out_address + bytes <= in_address, "ksync::cuda::reverse",
                 "in and out overlap partially (n = ", n, "); pass the same pointer to reverse in place");
  if (n == 0) return;
  reverse_tiles<<<grid_for(n, block_size), block_size, block_size * sizeof(T), stream>>>(in, out, n);
  KSYNC_CUDA_CHECK_LAUNCH("reverse_tiles");
}

template <class T>
void reverse_in_place(cudaStream_t stream, T* data, std::size_t n, int block_size) {
  check_block_size(block_size);
  check_argument(data != nullptr || n == 0, "ksync::cuda::reverse", "data is null but n = ", n);
  if (n < 2) return;
  reverse_tiles_in_place<<<grid_for(n / 2, block_size), block_size, 2 * block_size * sizeof(T), stream>>>(data, n);
  KSYNC_CUDA_CHECK_LAUNCH("reverse_tiles_in_place");
}

#define KSYNC_INSTANTIATE_REVERSE(T)                                      \
  template void reverse<T>(cudaStream_t, const T*, T*, std::size_t, int); \
  template void reverse_in_place<T>(cudaStream_t, T*, std::size_t, int);
KSYNC_INSTANTIATE_REVERSE(std::int32_t)
KSYNC_INSTANTIATE_REVERSE(std::int64_t)
KSYNC_INSTANTIATE_REVERSE(float)
KSYNC_INSTANTIATE_REVERSE(double)
#undef KSYNC_INSTANTIATE_REVERSE

}  // namespace ksync::cuda::detail
