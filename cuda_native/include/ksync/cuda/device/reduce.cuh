// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The kernels behind ksync::cuda::reduce / dot (device/reduce.hpp), and ksync::cuda::transform_reduce for
// CUDA translation units that reduce f(x) with their own device functor f. Include from .cu files only.
//
//   transform_reduce(stream, data, n, op, f, strategy, result[, tuning])  asynchronous, into *result
//   auto r = transform_reduce(stream, data, n, op, f[, strategy, tuning]) blocking; synchronizes `stream`
//
// One kernel template serves every strategy; only its last step differs (see finish_* below):
//   read      each thread folds a grid-stride slice into 4 independent accumulators (4 loads in flight),
//             16 bytes per load when the data is 16-byte aligned, scalar loads for the tail;
//   block     warp shuffles, then one shared-memory exchange (block::reduce_shuffle);
//   finish    two_pass: a partial per block, a second kernel combines them; last_block: a partial per
//             block, __threadfence + atomic ticket, the last block combines; grid_sync: a partial per block,
//             grid.sync(), block 0 combines; cluster: the blocks of a cluster combine through distributed
//             shared memory, then the last cluster (by ticket) combines the clusters; atomics: an atomic per
//             block into the result, which a one-thread kernel set to the identity first.
#pragma once

#include <ksync/cuda/block/reduce.cuh>
#include <ksync/cuda/detail/atomic_combine.cuh>
#include <ksync/cuda/detail/error.hpp>
#include <ksync/cuda/detail/operators.cuh>
#include <ksync/cuda/detail/readers.cuh>
#include <ksync/cuda/detail/runtime.hpp>
#include <ksync/cuda/detail/workspace.hpp>
#include <ksync/cuda/device/cluster.cuh>
#include <ksync/cuda/device/reduce.hpp>

#include <cooperative_groups.h>

#include <algorithm>
#include <cstddef>
#include <utility>

namespace ksync::cuda {

namespace detail {

// Each thread's fold of its grid-stride slice of reader[0, n): indices thread, thread + P, thread + 2P, ...
// (P = threads in the grid), so consecutive threads read consecutive addresses (coalesced).
template <class Reader, class Op, class T = typename Reader::value_type>
__device__ T fold_thread_slice(const Reader& reader, std::size_t n, Op op) {
  constexpr int chains = 4;  // independent accumulators: four loads in flight per thread
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  T partial[chains];
#pragma unroll
  for (int k = 0; k < chains; ++k)
    partial[k] = Op::template identity<T>();
  std::size_t scalar_begin = 0;
  if (reader.vectorized) {
    const std::size_t packs = n / Reader::width;
    std::size_t p = thread;
    for (; p + (chains - 1) * threads < packs; p += chains * threads) {
#pragma unroll
      for (int k = 0; k < chains; ++k)
        partial[k] = op(partial[k], reader.load_pack(p + k * threads, op));
    }
    for (; p < packs; p += threads)
      partial[0] = op(partial[0], reader.load_pack(p, op));
    scalar_begin = packs * Reader::width;  // fewer than `width` elements remain
  }
  std::size_t i = scalar_begin + thread;
  for (; i + (chains - 1) * threads < n; i += chains * threads) {
#pragma unroll
    for (int k = 0; k < chains; ++k)
      partial[k] = op(partial[k], reader.load(i + k * threads));
  }
  for (; i < n; i += threads)
    partial[0] = op(partial[0], reader.load(i));
#pragma unroll
  for (int k = 1; k < chains; ++k)
    partial[0] = op(partial[0], partial[k]);
  return partial[0];
}

// Thread 0 gets op over partials[0, count), which other blocks wrote: read through volatile loads (from L2,
// never from a possibly stale L1 line). Called by every thread of the block (block::reduce_shuffle inside).
template <int BlockSize, class T, class Op>
__device__ T fold_partials(const T* partials, unsigned int count, T* scratch, Op op) {
  T value = Op::template identity<T>();
  for (unsigned int i = threadIdx.x; i < count; i += BlockSize) {
    const T partial = *static_cast<const volatile T*>(partials + i);
    value = op(value, partial);
  }
  return block::reduce_shuffle<BlockSize>(value, scratch, op);
}

// Seed 001's single-pass finish. Every thread of the block calls; thread 0 holds `value`, this block's (or
// cluster's) result. It publishes the value in partials[slot], takes a ticket, and the block that takes the
// last of `slots` tickets combines all partials into *result and resets the ticket for the next call.
template <int BlockSize, class T, class Op>
__device__ void finish_last_block(T value, unsigned int slot, unsigned int slots, T* partials, unsigned int* ticket,
                                  T* result, T* scratch, Op op) {
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partials[slot] = value;
    __threadfence();  // the partial is visible device-wide before the ticket that announces it
    is_last = atomicAdd(ticket, 1u) == slots - 1;
  }
  // Participation: every thread of the block (the call is block-uniform). Data: is_last, written by thread
  // 0. Publishes whether this block finishes the reduction.
  __syncthreads();
  if (is_last) {      // block-uniform
    __threadfence();  // every other block's partial was fenced before its ticket; order our reads after ours
    const T total = fold_partials<BlockSize>(partials, slots, scratch, op);
    if (threadIdx.x == 0) {
      *result = total;
      *ticket = 0;  // the next call on this stream (its workspace) starts from zero
    }
  }
}

template <int BlockSize, reduce_strategy Strategy, class Reader, class Op>
__global__ void __launch_bounds__(BlockSize)
    reduce_kernel(Reader reader, std::size_t n, Op op, typename Reader::value_type* partials, unsigned int* ticket,
                  typename Reader::value_type* result) {
  using T = typename Reader::value_type;
  namespace cg = cooperative_groups;
  __shared__ T scratch[(BlockSize + 31) / 32];
  // Data bound: fold_thread_slice loads only indices below n; a thread with none holds the identity.
  // Participation bound: every thread of the block reaches the barriers inside reduce_shuffle.
  const T block_value = block::reduce_shuffle<BlockSize>(fold_thread_slice(reader, n, op), scratch, op);
  if constexpr (Strategy == reduce_strategy::two_pass) {
    if (threadIdx.x == 0) (gridDim.x == 1 ? *result : partials[blockIdx.x]) = block_value;
  } else if constexpr (Strategy == reduce_strategy::atomics) {
    if (threadIdx.x == 0) atomic_combine(result, block_value, op);
  } else if constexpr (Strategy == reduce_strategy::last_block) {
    // finish_last_block's barrier comes before its reuse of scratch, so warp 0 has read it by then.
    finish_last_block<BlockSize>(block_value, blockIdx.x, gridDim.x, partials, ticket, result, scratch, op);
  } else if constexpr (Strategy == reduce_strategy::grid_sync) {
    if (threadIdx.x == 0) partials[blockIdx.x] = block_value;
    // Participation: every thread of every block of the grid — all co-resident, since the launcher sized the
    // grid from the occupancy API and launched it cooperatively. Data: partials[0, gridDim.x), one per
    // block. Publishes every block's partial (grid.sync orders memory device-wide) to block 0.
    cg::this_grid().sync();
    if (blockIdx.x == 0) {  // block-uniform
      const T total = fold_partials<BlockSize>(partials, gridDim.x, scratch, op);
      if (threadIdx.x == 0) *result = total;
    }
  } else if constexpr (Strategy == reduce_strategy::cluster) {
#if KSYNC_CLUSTER_CODE
    const cg::cluster_group cluster = cg::this_cluster();
    __shared__ T block_slot;
    if (threadIdx.x == 0) block_slot = block_value;
    // Participation: every thread of every block of the cluster. Data: block_slot of each block (one value).
    // Publishes each block's value to the cluster's rank-0 block through distributed shared memory.
    cluster.sync();
    T cluster_value = Op::template identity<T>();
    const unsigned int blocks_in_cluster = cluster.num_blocks();
    if (cluster.block_rank() == 0 && threadIdx.x < 32) {  // uniform over warp 0 of the rank-0 block
      const unsigned int lane = threadIdx.x;
      // Data bound: lanes past the cluster's size read nothing (cluster sizes are at most 16).
      T value = lane < blocks_in_cluster ? *cluster.map_shared_rank(&block_slot, lane) : Op::template identity<T>();
      cluster_value = warp::reduce_prefix(32u, value, op);
    }
    // Participation: every thread of every block of the cluster. Data: none new; it keeps every block (and so
    // its shared memory) alive until rank 0 has read it: distributed shared memory of an exited block is gone.
    cluster.sync();
    if (cluster.block_rank() == 0) {  // block-uniform
      const unsigned int cluster_index = blockIdx.x / blocks_in_cluster;
      const unsigned int clusters = gridDim.x / blocks_in_cluster;
      finish_last_block<BlockSize>(cluster_value, cluster_index, clusters, partials, ticket, result, scratch, op);
    }
#else
    __trap();  // not reached: cluster_launch refuses code without clusters before launching
#endif
  }
}

// Writes the identity of `Op` into *result: the starting value the atomics strategy combines into.
template <class T, class Op>
__global__ void store_identity(T* result) {
  *result = Op::template identity<T>();
}

// Blocks of reduce_kernel<BlockSize, Strategy, Reader, Op> that fit on one multiprocessor of `device`, read
// from the occupancy API once per kernel, device and thread.
template <int BlockSize, reduce_strategy Strategy, class Reader, class Op>
int resident_blocks_per_multiprocessor(int device) {
  thread_local int cached_device = -1;
  thread_local int cached_blocks = 0;
  if (cached_device != device) {
    KSYNC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &cached_blocks, reduce_kernel<BlockSize, Strategy, Reader, Op>, BlockSize, 0));
    cached_device = device;
  }
  return cached_blocks;
}

template <int BlockSize, reduce_strategy Strategy, class Reader, class Op>
void launch_reduce(cudaStream_t stream, const Reader& reader, std::size_t n, Op op, typename Reader::value_type* result,
                   const reduce_tuning& tuning) {
  using T = typename Reader::value_type;
  constexpr const char* where = "ksync::cuda::reduce";
  const auto kernel = reduce_kernel<BlockSize, Strategy, Reader, Op>;
  const reduce_workspace& workspace = stream_workspace(stream);
  const int device = stream_device(stream);
  const int multiprocessors = multiprocessor_count(device);
  const int resident = resident_blocks_per_multiprocessor<BlockSize, Strategy, Reader, Op>(device);
  check_argument(tuning.blocks_per_sm <= workspace.max_blocks_per_multiprocessor, where,
                 "tuning.blocks_per_sm = ", tuning.blocks_per_sm, " exceeds the device's limit of ",
                 workspace.max_blocks_per_multiprocessor, " blocks per multiprocessor");
  if constexpr (Strategy == reduce_strategy::grid_sync) {
    check_argument(tuning.blocks_per_sm <= resident, where, "strategy grid_sync needs every block resident at once, ",
                   "but tuning.blocks_per_sm = ", tuning.blocks_per_sm, " and only ", resident, " blocks of ",
                   BlockSize, " threads of this kernel fit on one multiprocessor of device ", device);
  }
  const int blocks_per_sm = tuning.blocks_per_sm > 0 ? tuning.blocks_per_sm : std::max(1, resident);
  const std::size_t items = tuning.items_per_thread > 0 ? static_cast<std::size_t>(tuning.items_per_thread) : 16;
  const std::size_t needed = std::max<std::size_t>(1, (n + BlockSize * items - 1) / (BlockSize * items));
  const std::size_t limit = static_cast<std::size_t>(blocks_per_sm) * static_cast<std::size_t>(multiprocessors);
  auto blocks = static_cast<unsigned int>(std::min(needed, limit));
  auto* partials = static_cast<T*>(workspace.partials);

  if constexpr (Strategy == reduce_strategy::two_pass) {
    kernel<<<blocks, BlockSize, 0, stream>>>(reader, n, op, partials, workspace.ticket, result);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::reduce two_pass: pass 1");
    if (blocks > 1) {
      const elements_reader<T, identity_transform> partial_reader{partials, {}, aligned16(partials)};
      reduce_kernel<BlockSize, Strategy, decltype(partial_reader), Op>
          <<<1, BlockSize, 0, stream>>>(partial_reader, blocks, op, partials, workspace.ticket, result);
      KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::reduce two_pass: pass 2");
    }
  } else if constexpr (Strategy == reduce_strategy::atomics) {
    store_identity<T, Op><<<1, 1, 0, stream>>>(result);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::reduce atomics: store_identity");
    kernel<<<blocks, BlockSize, 0, stream>>>(reader, n, op, partials, workspace.ticket, result);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::reduce atomics");
  } else if constexpr (Strategy == reduce_strategy::last_block) {
    kernel<<<blocks, BlockSize, 0, stream>>>(reader, n, op, partials, workspace.ticket, result);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::reduce last_block");
  } else if constexpr (Strategy == reduce_strategy::grid_sync) {
    int cooperative = 0;
    KSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    check_argument(cooperative != 0, where, "strategy grid_sync needs cooperative launch, which device ", device,
                   " does not support");
    void* arguments[] = {
        const_cast<Reader*>(&reader), &n, &op, &partials, const_cast<unsigned int**>(&workspace.ticket), &result};
    KSYNC_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(blocks), dim3(BlockSize),
                                                 arguments, 0, stream));
  } else if constexpr (Strategy == reduce_strategy::cluster) {
    cluster_launch launch(where, kernel, BlockSize, tuning.cluster_size, 0, stream);
    // Whole clusters, no more than fit at once: clusters are placed within one GPC each, so fewer blocks are
    // resident than the per-multiprocessor limit suggests, and a grid beyond that would run a second,
    // mostly idle wave. Extra blocks of the last cluster fold nothing and contribute the identity.
    const unsigned int cluster_size = launch.cluster_size();
    const unsigned int clusters =
        std::min((blocks + cluster_size - 1) / cluster_size, static_cast<unsigned int>(launch.max_active_clusters()));
    launch.launch(std::max(1u, clusters), reader, n, op, partials, workspace.ticket, result);
  }
}

template <int BlockSize, class Reader, class Op>
void launch_reduce_strategy(cudaStream_t stream, const Reader& reader, std::size_t n, Op op, reduce_strategy strategy,
                            typename Reader::value_type* result, const reduce_tuning& tuning) {
  switch (strategy) {
    case reduce_strategy::two_pass:
      return launch_reduce<BlockSize, reduce_strategy::two_pass>(stream, reader, n, op, result, tuning);
    case reduce_strategy::grid_sync:
      return launch_reduce<BlockSize, reduce_strategy::grid_sync>(stream, reader, n, op, result, tuning);
    case reduce_strategy::cluster:
      return launch_reduce<BlockSize, reduce_strategy::cluster>(stream, reader, n, op, result, tuning);
    case reduce_strategy::atomics:
      return launch_reduce<BlockSize, reduce_strategy::atomics>(stream, reader, n, op, result, tuning);
    default:  // automatic and last_block; check_reduce_arguments rejected the portable strategies
      return launch_reduce<BlockSize, reduce_strategy::last_block>(stream, reader, n, op, result, tuning);
  }
}

// Enqueues op(reader[0, n)) into *result: the one entry point of every native reduction. The arguments were
// checked by check_reduce_arguments; block sizes other than 128, 256 and 512 were rejected there.
template <class Reader, class Op>
void enqueue_reduce(cudaStream_t stream, const Reader& reader, std::size_t n, Op op, reduce_strategy strategy,
                    typename Reader::value_type* result, const reduce_tuning& tuning) {
  check_argument(result != nullptr, "ksync::cuda::reduce", "result is null");
  switch (tuning.block_size) {
    case 128:
      return launch_reduce_strategy<128>(stream, reader, n, op, strategy, result, tuning);
    case 512:
      return launch_reduce_strategy<512>(stream, reader, n, op, strategy, result, tuning);
    default:
      return launch_reduce_strategy<256>(stream, reader, n, op, strategy, result, tuning);
  }
}

// Calls `body` with the operator functor that `op` names.
template <class Body>
decltype(auto) with_operator(reduce_op op, Body&& body) {
  switch (op) {
    case reduce_op::min:
      return body(minimum{});
    case reduce_op::max:
      return body(maximum{});
    default:
      return body(plus{});
  }
}

}  // namespace detail

namespace detail {
template <class T, class Transform>
void enqueue_transform_reduce(cudaStream_t stream, const T* data, std::size_t n, reduce_op op, Transform f,
                              reduce_strategy strategy, T* result, const reduce_tuning& tuning) {
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
  detail::enqueue_transform_reduce(stream, data, n, op, f, strategy, result, tuning);
}

// Blocking: returns op over f(data[i]); synchronizes `stream` only.
template <class T, class Transform>
[[nodiscard]] T transform_reduce(cudaStream_t stream, const T* data, std::size_t n, reduce_op op, Transform f,
                                 reduce_strategy strategy = reduce_strategy::automatic,
                                 const reduce_tuning& tuning = {}) {
  static_assert(is_value_type_v<T>, "ksync::cuda::transform_reduce supports int32, int64, float and double");
  detail::check_reduce_arguments("ksync::cuda::transform_reduce", data, data, n, strategy, tuning);
  return detail::blocking_result<T>(stream, [&](T* device_result) {
    detail::enqueue_transform_reduce(stream, data, n, op, f, strategy, device_result, tuning);
  });
}

}  // namespace ksync::cuda
