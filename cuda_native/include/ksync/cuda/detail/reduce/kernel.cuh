// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What every native reduction strategy (this folder, one file each) shares: the read phase, the block phase
// and the kernel that runs them, the grid the launcher sizes, and the base of the strategies whose result is
// one store (one_store_result). A strategy supplies the kernel's last step (`finish`) and its launch;
// strategies.cuh lists them. The fold over other blocks' partials and the single-pass finish that some of them
// take are grid-scope pieces (grid/last_block.cuh). Private to the native half, as all of detail/:
// device/reduce.cuh and src/device/reduce*.cu reach it through strategies.cuh.
//   read      each thread folds a grid-stride slice into 4 independent accumulators (4 loads in flight),
//             16 bytes per load when the data is 16-byte aligned, scalar loads for the tail;
//   block     warp shuffles, then one shared-memory exchange (block::reduce_shuffle);
//   finish    the strategy's own; its one store goes through store_result, which also publishes a blocking
//             call's mailbox slot (reduce_target).
#pragma once

#include <ksync/cuda/block/reduce.cuh>
#include <ksync/cuda/detail/readers.cuh>
#include <ksync/cuda/detail/workspace.hpp>
#include <ksync/cuda/device/reduce.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/grid/last_block.cuh>
#include <ksync/cuda/grid/stride.cuh>
#include <ksync/cuda/runtime.hpp>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/ops.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ksync::cuda::detail {

// A reduction's one store: the value, and where the target is a mailbox slot that the kernel publishes itself
// (a blocking call, ksync/cuda/mailbox.hpp), the slot's epoch behind it.
template <class T>
__device__ void store_result(const reduce_target<T>& target, T value) {
  *target.value = value;
  if (target.epoch.address != nullptr) {
    __threadfence_system();  // the value reaches the host before the epoch that announces it
    *static_cast<volatile std::uint32_t*>(target.epoch.address) = target.epoch.value;
  }
}

// Each thread's fold of its grid-stride slice of reader[0, n): indices thread, thread + P, thread + 2P, ...
// (P = threads in the grid), so consecutive threads read consecutive addresses (coalesced).
template <class Reader, class Op, class T = typename Reader::value_type>
__device__ T fold_thread_slice(const Reader& reader, std::size_t n, Op op) {
  constexpr int chains = 4;  // independent accumulators: four loads in flight per thread
  const auto threads = static_cast<std::size_t>(grid_stride());
  const auto thread = static_cast<std::size_t>(grid_stride_begin());
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

// One kernel serves every strategy: read, block, then Strategy::finish with this block's value in thread 0.
template <int BlockSize, class Strategy, class Reader, class Op>
__global__ void __launch_bounds__(BlockSize)
    reduce_kernel(Reader reader, std::size_t n, Op op, typename Reader::value_type* partials, unsigned int* ticket,
                  reduce_target<typename Reader::value_type> result) {
  using T = typename Reader::value_type;
  __shared__ block::shuffle_storage<T, BlockSize> scratch;
  // Data bound: fold_thread_slice loads only indices below n; a thread with none holds the identity.
  // Participation bound: every thread of the block reaches the barriers inside reduce_shuffle.
  const T block_value = block::reduce_shuffle<BlockSize>(fold_thread_slice(reader, n, op), scratch, op);
  Strategy::template finish<BlockSize>(block_value, partials, ticket, result, scratch, op);
}

// What the strategies whose result is one plain store by one thread derive from (the others derive from
// implements<Id> and say false): a blocking call can have such a result written into the host's mailbox
// directly, the kernel publishing the slot itself (store_result, ksync/cuda/mailbox.hpp).
template <reduce_strategy Id>
struct one_store_result : ksync::detail::implements<Id> {
  static constexpr bool result_is_one_store = true;
};

// Blocks of reduce_kernel<BlockSize, Strategy, Reader, Op> that fit on one multiprocessor of `device`, read
// from the occupancy API once per kernel, device and thread.
template <int BlockSize, class Strategy, class Reader, class Op>
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

// The grid every strategy starts from: enough blocks of BlockSize threads that each thread reads at least
// tuning.items_per_thread elements (16 by default), and no more than tuning.blocks_per_sm (default: as many
// as can be resident) per multiprocessor; with the stream's workspace (partials, ticket).
struct reduce_grid {
  unsigned int blocks;
  int device;
  int resident_per_multiprocessor;
  const reduce_workspace* workspace;
};

template <int BlockSize, class Strategy, class Reader, class Op>
reduce_grid plan_reduce_grid(cudaStream_t stream, std::size_t n, const reduce_tuning& tuning) {
  const reduce_workspace& workspace = stream_workspace(stream);
  const int device = workspace.device;  // the stream's (the workspace is keyed on it)
  const int multiprocessors = multiprocessor_count(device);
  const int resident = resident_blocks_per_multiprocessor<BlockSize, Strategy, Reader, Op>(device);
  check_argument(tuning.blocks_per_sm <= workspace.max_blocks_per_multiprocessor, "ksync::cuda::reduce",
                 "tuning.blocks_per_sm = ", tuning.blocks_per_sm, " exceeds the device's limit of ",
                 workspace.max_blocks_per_multiprocessor, " blocks per multiprocessor");
  const int blocks_per_sm = tuning.blocks_per_sm > 0 ? tuning.blocks_per_sm : std::max(1, resident);
  const std::size_t items = tuning.items_per_thread > 0 ? static_cast<std::size_t>(tuning.items_per_thread) : 16;
  const std::size_t needed = std::max<std::size_t>(1, (n + BlockSize * items - 1) / (BlockSize * items));
  const std::size_t limit = static_cast<std::size_t>(blocks_per_sm) * static_cast<std::size_t>(multiprocessors);
  return {static_cast<unsigned int>(std::min(needed, limit)), device, resident, &workspace};
}

}  // namespace ksync::cuda::detail
