// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A home-made grid barrier (seed 003) with acquire/release atomics, a bounded spin and a co-residency guard.
// A grid barrier only works when every block of the grid is resident at once: a block that waits for one
// that cannot start until a slot frees never lets it start (seed 000: two slots, three blocks). So
//  - launch through check_co_resident() first: it refuses a grid larger than the occupancy API allows;
//  - the spin is bounded: a block that waits longer than `spin_limit` rounds gives up, marks
//    state->timed_out and returns false instead of hanging the GPU.
//
//   __global__ void k(ksync::cuda::spin_barrier_state* state, ...) {
//     ... write this block's data ...
//     if (!ksync::cuda::spin_barrier_sync(state, limit)) return;   // every thread of every block calls
//     ... read other blocks' data ...
//   }
// `state` is zeroed (cudaMemsetAsync) before each launch.
#pragma once

#include <ksync/cuda/detail/error.hpp>
#include <ksync/cuda/detail/runtime.hpp>

#include <cuda/atomic>

#include <cstddef>

namespace ksync::cuda {

struct spin_barrier_state {
  unsigned int arrived;     // blocks arrived in the current round
  unsigned int generation;  // rounds completed
  unsigned int timed_out;   // blocks that gave up waiting
};

// Waits until every block of the grid has called; returns false (for the whole block) when this block
// gave up after `spin_limit` rounds of about a microsecond. Every thread of the block must call.
__device__ inline bool spin_barrier_sync(spin_barrier_state* state, unsigned int spin_limit) {
  __shared__ bool released;
  // Participation: every thread of the block. Data: whatever the block wrote before the call. Publishes
  // those writes to thread 0, whose release below carries them to the other blocks.
  __syncthreads();
  if (threadIdx.x == 0) {
    const ::cuda::atomic_ref<unsigned int, ::cuda::thread_scope_device> arrived(state->arrived);
    const ::cuda::atomic_ref<unsigned int, ::cuda::thread_scope_device> generation(state->generation);
    const unsigned int round = generation.load(::cuda::memory_order_acquire);
    released = true;
    if (arrived.fetch_add(1u, ::cuda::memory_order_acq_rel) + 1u == gridDim.x) {
      arrived.store(0u, ::cuda::memory_order_relaxed);
      generation.fetch_add(1u, ::cuda::memory_order_release);  // the last block releases the round
    } else {
      // The spin barrier. Participation: one thread of every block of the grid (each block's thread 0).
      // Data: state. Publishes (acquire) every block's writes before its arrival.
      unsigned int spins = 0;
      while (generation.load(::cuda::memory_order_acquire) == round) {
        if (++spins > spin_limit) {
          ::cuda::atomic_ref<unsigned int, ::cuda::thread_scope_device>(state->timed_out).fetch_add(1u);
          released = false;
          break;
        }
        __nanosleep(1000);
      }
    }
  }
  // Participation: every thread of the block. Data: `released` and, through thread 0's acquire, the other
  // blocks' writes. Publishes both to the whole block.
  __syncthreads();
  return released;
}

// Throws std::invalid_argument when `blocks` blocks of `block_size` threads of `kernel` with
// `dynamic_shared_bytes` cannot all be resident on `device` at once: a grid barrier in them could never
// release. `where` names the caller in the message.
template <class Kernel>
void check_co_resident(const char* where, Kernel kernel, unsigned int blocks, int block_size,
                       std::size_t dynamic_shared_bytes, int device) {
  int per_multiprocessor = 0;
  KSYNC_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, block_size, dynamic_shared_bytes));
  const int multiprocessors = detail::multiprocessor_count(device);
  const auto capacity = static_cast<unsigned long long>(per_multiprocessor) * multiprocessors;
  detail::check_argument(
      blocks <= capacity, where, "blocks = ", blocks, " cannot be resident at once: ", per_multiprocessor,
      " blocks of ", block_size, " threads and ", dynamic_shared_bytes,
      " bytes of dynamic shared memory fit per multiprocessor, ", capacity, " on the ", multiprocessors,
      " multiprocessors of device ", device, "; a grid barrier would wait forever for the rest");
}

}  // namespace ksync::cuda
