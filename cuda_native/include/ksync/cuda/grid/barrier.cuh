// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Home-made grid barriers built on spinning flags, each with a bounded spin and a co-residency guard:
//   spin_barrier_sync           acquire/release atomics (cuda::atomic_ref) on one word: each block's arrival
//                               (a release add) publishes its writes, and the last arrival flips the word's
//                               top bit, which the others wait for with acquire loads — one atomic round trip
//                               per block and no reset, as in the CUDA runtime's own grid barrier.
//   volatile_spin_barrier_sync  the classic form: an atomicAdd counter and a sense flag read through a
//                               `volatile` pointer (so the load stays inside the loop: tests/ptx), with
//                               __threadfence() before arriving and after seeing the flag for the data.
// A grid barrier only works when every block of the grid is resident at once: a block that waits for one
// that cannot start until a slot frees never lets it start (e.g. two slots, three blocks). So
//  - launch through check_co_resident() first: it refuses a grid larger than the occupancy API allows;
//  - the spin is bounded: a block that waits longer than `timeout_ns` (read from %globaltimer) gives up,
//    counts itself in state->timed_out and returns false instead of hanging the GPU. The grid's data is
//    then incomplete, and the state must be zeroed again before the next launch.
//
//   __global__ void k(ksync::cuda::spin_barrier_state* state, ...) {
//     ... write this block's data ...
//     if (!ksync::cuda::spin_barrier_sync(state, timeout_ns)) return;   // every thread of every block calls
//     ... read other blocks' data ...
//   }
// A state is zeroed (cudaMemsetAsync) before its first launch; a round that completes leaves it ready for
// the next round and the next launch.
//
// A kernel written once for several grid barriers takes one of these as a template argument and calls
// barrier.arrive_and_wait() (every thread of every block), which returns false where the block gave up:
//   grid_sync_barrier  cooperative_groups' grid.sync() (a cooperative launch); never gives up;
//   spin_barrier       spin_barrier_sync on a state, with its timeout;
//   cluster_sync_barrier (grid/cluster.cuh)  cluster.sync(), for a grid of one cluster; never gives up.
// CG's persistent kernels (detail/cg/) are written so.
#pragma once

#include <ksync/cuda/global_timer.cuh>
#include <ksync/cuda/grid/co_resident.cuh>  // check_co_resident

#include <cooperative_groups.h>
#include <cuda/atomic>

#include <cstdint>

namespace ksync::cuda {

struct spin_barrier_state {
  unsigned int arrivals;   // low 31 bits: this round's arrivals (block 0 counts for -(G - 1)); top bit: round parity
  unsigned int timed_out;  // blocks that gave up waiting
};

struct volatile_spin_barrier_state {
  unsigned int arrived;    // blocks arrived in the current round
  unsigned int sense;      // flips when a round completes
  unsigned int timed_out;  // blocks that gave up waiting
};

// Waits until every block of the grid has called; returns false (for the whole block) when this block
// gave up after `timeout_ns`. Every thread of the block must call.
__device__ inline bool spin_barrier_sync(spin_barrier_state* state, std::uint64_t timeout_ns) {
  __shared__ bool released;
  // Participation: every thread of the block. Data: whatever the block wrote before the call. Publishes
  // those writes to thread 0, whose release below carries them to the other blocks.
  __syncthreads();
  if (threadIdx.x == 0) {
    const ::cuda::atomic_ref<unsigned int, ::cuda::thread_scope_device> arrivals(state->arrivals);
    // The G additions of a round sum to exactly 2^31: the top bit flips once every block has arrived, and
    // the low bits come back to where they were.
    const unsigned int add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1u) : 1u;
    const unsigned int before = arrivals.fetch_add(add, ::cuda::memory_order_release);
    released = true;
    // The spin barrier. Participation: one thread of every block of the grid (each block's thread 0).
    // Data: state->arrivals. Publishes (acquire) every block's writes before its arrival.
    const std::uint64_t start = global_nanoseconds();
    while (((arrivals.load(::cuda::memory_order_acquire) ^ before) & 0x80000000u) == 0) {
      if (global_nanoseconds() - start > timeout_ns) {
        ::cuda::atomic_ref<unsigned int, ::cuda::thread_scope_device>(state->timed_out).fetch_add(1u);
        released = false;
        break;
      }
    }
  }
  // Participation: every thread of the block. Data: `released` and, through thread 0's acquire, the other
  // blocks' writes. Publishes both to the whole block.
  __syncthreads();
  return released;
}

// The volatile sense-reversal barrier. `sense` is the caller's per-thread round parity, 0 before the first
// call (every thread of the block passes its own copy; the copies stay equal).
__device__ inline bool volatile_spin_barrier_sync(volatile_spin_barrier_state* state, unsigned int& sense,
                                                  std::uint64_t timeout_ns) {
  __shared__ bool released;
  sense ^= 1u;
  // Participation: every thread of the block. Data: whatever the block wrote before the call. Publishes
  // those writes to thread 0, whose fence below carries them to device scope.
  __syncthreads();
  if (threadIdx.x == 0) {
    released = true;
    __threadfence();  // this block's writes are visible device-wide before its arrival counts
    if (atomicAdd(&state->arrived, 1u) + 1u == gridDim.x) {
      static_cast<volatile unsigned int*>(&state->arrived)[0] = 0u;
      __threadfence();  // the reset lands before the release
      static_cast<volatile unsigned int*>(&state->sense)[0] = sense;
    } else {
      // The spin barrier. Participation: one thread of every block of the grid (each block's thread 0).
      // Data: state->sense. The volatile load is issued on every iteration; the fence after it keeps this
      // block's later reads behind the flag, so they see every block's fenced writes.
      const volatile unsigned int* flag = &state->sense;
      const std::uint64_t start = global_nanoseconds();
      while (*flag != sense) {
        if (global_nanoseconds() - start > timeout_ns) {
          atomicAdd(&state->timed_out, 1u);
          released = false;
          break;
        }
      }
      __threadfence();
    }
  }
  // Participation: every thread of the block. Data: `released` and the other blocks' writes (ordered by
  // thread 0's fence). Publishes both to the whole block.
  __syncthreads();
  return released;
}

// The barriers as arguments of a kernel template (above). The call sites name their participation and data
// bounds and what each barrier publishes.
struct grid_sync_barrier {
  __device__ bool arrive_and_wait() const {
    cooperative_groups::this_grid().sync();
    return true;
  }
};

struct spin_barrier {
  spin_barrier_state* state;
  std::uint64_t timeout_ns;
  __device__ bool arrive_and_wait() const { return spin_barrier_sync(state, timeout_ns); }
};

}  // namespace ksync::cuda
