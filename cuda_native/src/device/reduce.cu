// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/block/reduce.cuh>
#include <ksync/cuda/detail/error.hpp>
#include <ksync/cuda/detail/runtime.hpp>
#include <ksync/cuda/device/reduce.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ksync::cuda::detail {
namespace {

constexpr int partial_block_size = 256;  // pass 1: 8 warps per block, up to 8 resident blocks per SM
constexpr int final_block_size = 1024;   // pass 2: one block; its loop covers any number of partials

// Pass 1 (and, with one block, pass 2): each thread sums a grid-stride slice of data[0, n), then the block
// combines its threads; thread 0 writes the block's partial to partials[blockIdx.x].
template <int BlockSize, class T>
__global__ void __launch_bounds__(BlockSize)
    sum_to_partials(const T* __restrict__ data, std::size_t n, T* __restrict__ partials) {
  __shared__ T scratch[BlockSize];
  // Data bound: only indices below n are loaded; threads past it keep the identity and still reach every
  // barrier inside reduce_tree (its participation bound is the whole block).
  // The grid-stride loop takes `independent_loads` strides per round into separate accumulators, so that
  // several loads are in flight per thread (one at a time leaves the memory system mostly idle).
  constexpr int independent_loads = 4;
  T local[independent_loads];
#pragma unroll
  for (int k = 0; k < independent_loads; ++k)
    local[k] = plus::identity<T>();
  const std::size_t grid_stride = static_cast<std::size_t>(gridDim.x) * BlockSize;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * BlockSize + threadIdx.x;
  for (; i + (independent_loads - 1) * grid_stride < n; i += independent_loads * grid_stride) {
#pragma unroll
    for (int k = 0; k < independent_loads; ++k)
      local[k] += data[i + k * grid_stride];
  }
  for (; i < n; i += grid_stride)
    local[0] += data[i];
#pragma unroll
  for (int k = 1; k < independent_loads; ++k)
    local[0] += local[k];
  const T block_sum = block::reduce_tree<BlockSize>(local[0], scratch, plus{});
  if (threadIdx.x == 0) partials[blockIdx.x] = block_sum;
}

// Blocks of pass 1: enough to cover n, never more than can be resident at once on `device`.
template <class T>
int partial_block_count(int device, std::size_t n) {
  if (n == 0) return 0;
  static thread_local int cached_device = -1;
  static thread_local int cached_blocks = 0;
  if (device != cached_device) {
    int per_sm = 0;
    KSYNC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum_to_partials<partial_block_size, T>,
                                                                   partial_block_size, 0));
    cached_blocks = std::max(1, per_sm) * multiprocessor_count(device);
    cached_device = device;
  }
  const std::size_t needed = (n + partial_block_size - 1) / partial_block_size;
  return static_cast<int>(std::min<std::size_t>(needed, static_cast<std::size_t>(cached_blocks)));
}

template <class T>
void check_input(const T* data, std::size_t n) {
  check_argument(data != nullptr || n == 0, "ksync::cuda::reduce", "data is null but n = ", n);
}

}  // namespace

template <class T>
void reduce_sum(cudaStream_t stream, const T* data, std::size_t n, T* result) {
  check_input(data, n);
  check_argument(result != nullptr, "ksync::cuda::reduce", "result is null");
  const int device = stream_device(stream);
  const int blocks = partial_block_count<T>(device, n);
  T* partials = nullptr;
  if (blocks > 0) {
    KSYNC_CUDA_CHECK(
        cudaMallocFromPoolAsync(reinterpret_cast<void**>(&partials), sizeof(T) * blocks, scratch_pool(device), stream));
    sum_to_partials<partial_block_size><<<blocks, partial_block_size, 0, stream>>>(data, n, partials);
    KSYNC_CUDA_CHECK_LAUNCH("sum_to_partials<<<blocks, 256>>>");
  }
  // Pass 2 runs even for n == 0, so that *result is written (with the identity) in every case.
  sum_to_partials<final_block_size><<<1, final_block_size, 0, stream>>>(partials, blocks, result);
  KSYNC_CUDA_CHECK_LAUNCH("sum_to_partials<<<1, 1024>>>");
  if (partials != nullptr) KSYNC_CUDA_CHECK(cudaFreeAsync(partials, stream));
}

template <class T>
T reduce_sum_blocking(cudaStream_t stream, const T* data, std::size_t n) {
  check_input(data, n);  // before any allocation
  T* device_result = nullptr;
  KSYNC_CUDA_CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&device_result), sizeof(T),
                                           scratch_pool(stream_device(stream)), stream));
  T host_result{};
  try {
    reduce_sum(stream, data, n, device_result);
    KSYNC_CUDA_CHECK(cudaMemcpyAsync(&host_result, device_result, sizeof(T), cudaMemcpyDeviceToHost, stream));
  } catch (...) {
    (void)cudaFreeAsync(device_result, stream);
    throw;
  }
  KSYNC_CUDA_CHECK(cudaFreeAsync(device_result, stream));
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host_result;
}

#define KSYNC_INSTANTIATE_REDUCE(T)                                     \
  template void reduce_sum<T>(cudaStream_t, const T*, std::size_t, T*); \
  template T reduce_sum_blocking<T>(cudaStream_t, const T*, std::size_t);
KSYNC_INSTANTIATE_REDUCE(std::int32_t)
KSYNC_INSTANTIATE_REDUCE(std::int64_t)
KSYNC_INSTANTIATE_REDUCE(float)
KSYNC_INSTANTIATE_REDUCE(double)
#undef KSYNC_INSTANTIATE_REDUCE

}  // namespace ksync::cuda::detail
