// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The kernels of ksync::cuda::jacobi (device/jacobi.hpp), private to the native half (src/device/jacobi.cu):
// one sweep, the tiled sweeps of temporal blocking, the rounds a persistent kernel runs between its
// barriers, and the three persistent kernels, which differ only in the barrier.
#pragma once

#include <ksync/cuda/grid/barrier.cuh>
#include <ksync/cuda/grid/stride.cuh>
#include <ksync/stencil.hpp>

#include <cooperative_groups.h>

#include <cstdint>

namespace ksync::cuda::detail::jacobi_kernels {

// One sweep by the whole grid: next[i] for every i of this thread's grid-stride slice. Data bound: n.
template <class T>
__device__ void sweep(const T* current, T* next, std::int64_t n) {
  for (std::int64_t i = grid_stride_begin(); i < n; i += grid_stride()) {
    next[i] = (i == 0 || i == n - 1) ? current[i] : jacobi_update(current[i - 1], current[i + 1]);
  }
}

// The persistent forms run the phases in rounds separated by a grid barrier: `rounds` rounds, the first
// `longer` of them sweeps + 1 sweeps long, the others `sweeps`. Round r reads u on even r and scratch on odd
// ones and writes the other, so the round count has the parity of the phase count: the result lands where
// one sweep per round leaves it.
struct round_plan {
  int rounds = 0;
  int sweeps = 1;
  int longer = 0;
  bool tiled = false;  // rounds sweep tiles in shared memory (sweeps_per_barrier > 1)
};

inline round_plan plan_rounds(int phases, int sweeps_per_barrier) {
  int rounds = (phases + sweeps_per_barrier - 1) / sweeps_per_barrier;
  // One round more when the parity differs; still rounds <= phases (rounds == phases has the same parity),
  // and no round longer than sweeps_per_barrier.
  if (rounds % 2 != phases % 2) ++rounds;
  return {.rounds = rounds, .sweeps = phases / rounds, .longer = phases % rounds, .tiled = sweeps_per_barrier > 1};
}

// `sweeps` sweeps from `current` to `next`, a tile of blockDim.x points at a time in shared memory (`tile`
// holds two buffers of blockDim.x + 2 * sweeps values). The block loads its tile and `sweeps` neighbours on
// each side (fewer at the ends of [0, n)); sweep s recomputes every point whose inputs are still valid —
// the valid range shrinks by one point on each open side per sweep — so after the last one the tile's own
// points hold exactly what `sweeps` global sweeps would give.
template <class T>
__device__ void tiled_sweeps(const T* current, T* next, std::int64_t n, int sweeps, T* tile) {
  const std::int64_t width = blockDim.x;
  T* read = tile;
  T* write = tile + width + 2 * sweeps;
  // The tile loop's bounds depend only on blockIdx: every thread of the block runs every iteration, so every
  // thread reaches the __syncthreads below.
  for (std::int64_t start = blockIdx.x * width; start < n; start += static_cast<std::int64_t>(gridDim.x) * width) {
    const std::int64_t end = start + width < n ? start + width : n;
    const std::int64_t origin = start - sweeps;  // tile[k] holds point origin + k
    const std::int64_t low = origin > 0 ? origin : 0;
    const std::int64_t high = end + sweeps < n ? end + sweeps : n;
    for (std::int64_t g = low + threadIdx.x; g < high; g += width)
      read[g - origin] = current[g];
    // Participation: the whole block (see the loop). Data: read[low, high) of the tile, loaded above.
    // Publishes the loaded points to the threads that sweep their neighbours.
    __syncthreads();
    for (int s = 1; s <= sweeps; ++s) {
      const std::int64_t from = low == 0 ? 0 : low + s;
      const std::int64_t to = high == n ? n : high - s;
      for (std::int64_t g = from + threadIdx.x; g < to; g += width) {
        const std::int64_t k = g - origin;
        write[k] = (g == 0 || g == n - 1) ? read[k] : jacobi_update(read[k - 1], read[k + 1]);
      }
      // Participation: the whole block (s and sweeps are uniform). Data: write[from, to). Publishes this
      // sweep to the next one's neighbour reads, and ends this sweep's reads of `read` before it is written.
      __syncthreads();
      T* const swept = write;
      write = read;
      read = swept;
    }
    for (std::int64_t g = start + threadIdx.x; g < end; g += width)
      next[g] = read[g - origin];
    // Participation: the whole block. Data: none published; ends the reads of `read` above before the next
    // tile loads into it.
    __syncthreads();
  }
}

// Round r of `plan`: u -> scratch on even rounds, scratch -> u on odd ones.
template <class T>
__device__ void run_round(T* u, T* scratch, std::int64_t n, const round_plan& plan, int round) {
  const T* current = round % 2 == 0 ? u : scratch;
  T* next = round % 2 == 0 ? scratch : u;
  if (!plan.tiled) {
    sweep<T>(current, next, n);
    return;
  }
  extern __shared__ unsigned char jacobi_tile[];
  tiled_sweeps<T>(current, next, n, plan.sweeps + (round < plan.longer ? 1 : 0), reinterpret_cast<T*>(jacobi_tile));
}

template <class T>
__global__ void jacobi_phase_kernel(const T* current, T* next, std::int64_t n) {
  sweep(current, next, n);
}

template <class T>
__global__ void jacobi_grid_sync_kernel(T* u, T* scratch, std::int64_t n, round_plan plan) {
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (int round = 0; round < plan.rounds; ++round) {
    run_round(u, scratch, n, plan, round);
    // Participation: every thread of every block of the cooperative grid (round and plan are uniform, so
    // all reach it; the launcher checked the grid co-resident). Data: next[0, n), written by the blocks'
    // slices or tiles. Publishes this round to the next one, which reads other blocks' points.
    if (round + 1 < plan.rounds) grid.sync();
  }
}

template <class T>
__global__ void jacobi_spin_kernel(T* u, T* scratch, std::int64_t n, round_plan plan, spin_barrier_state* state,
                                   std::uint64_t timeout_ns) {
  for (int round = 0; round < plan.rounds; ++round) {
    run_round(u, scratch, n, plan, round);
    // Participation: every thread of every block of the grid (uniform condition; co-residency checked before
    // launch). Data: next[0, n). Publishes this round (release/acquire) to the next; a block that times out
    // stops, leaving the count in state->timed_out.
    if (round + 1 < plan.rounds && !spin_barrier_sync(state, timeout_ns)) return;
  }
}

template <class T>
__global__ void jacobi_volatile_kernel(T* u, T* scratch, std::int64_t n, round_plan plan,
                                       volatile_spin_barrier_state* state, std::uint64_t timeout_ns) {
  // Every block reads the flag's parity before its first arrival, and the flag cannot flip before every
  // block has arrived: all blocks start from the same parity, whatever earlier launches left.
  unsigned int sense = *static_cast<volatile unsigned int*>(&state->sense);
  for (int round = 0; round < plan.rounds; ++round) {
    run_round(u, scratch, n, plan, round);
    // Participation: every thread of every block of the grid (uniform condition; co-residency checked before
    // launch). Data: next[0, n). Publishes this round (fences around the volatile flag) to the next.
    if (round + 1 < plan.rounds && !volatile_spin_barrier_sync(state, sense, timeout_ns)) return;
  }
}

}  // namespace ksync::cuda::detail::jacobi_kernels
