// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Block-scope hazards (docs/hazards.md): 01 a barrier reached by half the block, 02 a barrier inside a
// branch that splits a warp, 03 a barrier in each branch of an if/else, 07 a missing barrier between a
// shared write and a neighbour's read, 11 __syncwarp where another warp wrote the data. Each kernel takes
// `Fixed` (the corrected twin) and `Checked` (ksync's barrier check instead of plain __syncthreads).
#include "catalog.hpp"

#include <ksync/cuda/block/checked_barrier.cuh>

namespace ksync::hazards {
namespace {

constexpr int block_threads = 128;

// Sets up the ledger of the checked barrier (every thread, then a barrier: participation the whole block,
// data the ledger slots); nothing when unchecked.
template <bool Checked>
__device__ void start_checks(int* ledger) {
  if constexpr (Checked) {
    ksync::cuda::block::reset_barrier_ledger(ledger);
    __syncthreads();  // participation: every thread; data: ledger[0, blockDim.x); publishes the resets
  }
}

// The barrier of a case: plain, or checked at `site` (the hazards' bounds are described where called).
template <bool Checked>
__device__ void block_barrier(int site, int* ledger, unsigned int* violations) {
  if constexpr (Checked) {
    ksync::cuda::block::checked_syncthreads(site, ledger, violations);
  } else {
    __syncthreads();  // participation and data: as at the call site
  }
}

// 01 — the 128-thread block reverse of n = 100 values, where only threads 0..63 reach the barrier.
template <bool Fixed, bool Checked>
__global__ void partial_barrier(const int* in, int* out, unsigned int* violations) {
  __shared__ int slots[block_threads];
  __shared__ int ledger[block_threads];
  constexpr int n = 100;
  const int t = static_cast<int>(threadIdx.x);
  start_checks<Checked>(ledger);
  slots[t] = t < n ? in[t] : 0;  // data bound n guards the load; every thread fills its own slot
  if (Fixed || t < 64) {
    // Fixed — participation: all 128 threads; data: slots[0, n). Publishes every slot before the reads.
    // Hazard: the participation bound is t < 64 — threads 64..127 read slots[n-1-t] unsynchronized.
    block_barrier<Checked>(0, ledger, violations);
  }
  if (t < n) out[t] = slots[n - 1 - t];
}

// 02 — the barrier inside a branch taken by lanes 0..15 of every warp.
template <bool Fixed, bool Checked>
__global__ void divergent_barrier(const int* in, int* out, unsigned int* violations) {
  __shared__ int slots[block_threads];
  __shared__ int ledger[block_threads];
  const int t = static_cast<int>(threadIdx.x);
  start_checks<Checked>(ledger);
  int value = in[t];
  if (t % 32 < 16) {
    value *= 2;  // the branch's own work
    // Hazard: participation is half of each warp (the other half never arrives here); data: none yet —
    // the slots are written after the branch, so this barrier publishes nothing.
    if constexpr (!Fixed) block_barrier<Checked>(0, ledger, violations);
  } else {
    value += 1;
  }
  slots[t] = value;
  // Fixed: after the branches join. Participation: all 128 threads; data: slots[0, 128). Publishes the
  // slots before the mirrored reads. (The hazard has it too: the neighbours' slots need it.)
  block_barrier<Checked>(1, ledger, violations);
  out[t] = slots[block_threads - 1 - t];
}

// 03 — a barrier in each branch of an if/else. Two barriers in the source, and the contract is that all
// threads reach the same one.
template <bool Fixed, bool Checked>
__global__ void barrier_per_branch(const int* in, int* out, unsigned int* violations) {
  __shared__ int slots[block_threads];
  __shared__ int ledger[block_threads];
  const int t = static_cast<int>(threadIdx.x);
  start_checks<Checked>(ledger);
  slots[t] = in[t];
  if constexpr (Fixed) {
    // Participation: all 128 threads at one barrier; data: slots[0, 128). Publishes every slot.
    block_barrier<Checked>(0, ledger, violations);
    out[t] = t < 64 ? slots[t + 64] : slots[t - 64];
  } else if (t < 64) {
    // Hazard: participation is meant to be all 128 threads, but warps 0-1 arrive here and warps 2-3 at the
    // barrier below; data: slots[0, 128), which each half reads from the other.
    block_barrier<Checked>(1, ledger, violations);
    out[t] = slots[t + 64];
  } else {
    block_barrier<Checked>(2, ledger, violations);  // the other half of the hazard above
    out[t] = slots[t - 64];
  }
}

// 07 — a shared write and a neighbour's read with no barrier between.
template <bool Fixed, bool Checked>
__global__ void missing_barrier(const int* in, int* out, unsigned int* violations) {
  __shared__ int slots[block_threads];
  __shared__ int ledger[block_threads];
  const int t = static_cast<int>(threadIdx.x);
  start_checks<Checked>(ledger);
  slots[t] = in[t];
  // Fixed — participation: all 128 threads; data: slots[0, 128). Publishes each slot to its neighbour.
  if constexpr (Fixed) block_barrier<Checked>(0, ledger, violations);
  out[t] = slots[(t + 1) % block_threads];
}

// 11 — warp 0 writes, __syncwarp(), warp 1 reads: a warp's sync says nothing about other warps.
template <bool Fixed, bool Checked>
__global__ void warp_sync_across_warps(const int* in, int* out, unsigned int* violations) {
  __shared__ int slots[32];
  __shared__ int ledger[64];
  const int t = static_cast<int>(threadIdx.x);
  start_checks<Checked>(ledger);
  if (t < 32) slots[t] = in[t];
  if constexpr (Fixed) {
    // Participation: both warps (64 threads); data: slots[0, 32). Publishes warp 0's writes to warp 1.
    block_barrier<Checked>(0, ledger, violations);
  } else {
    // Hazard: participation is this warp's 32 lanes only; warp 0's writes are not published to warp 1.
    __syncwarp();
  }
  if (t >= 32) out[t - 32] = slots[t - 32];
}

std::vector<int> reversed(const std::vector<int>& values, int n) {
  std::vector<int> result(static_cast<std::size_t>(n));
  for (int t = 0; t < n; ++t)
    result[static_cast<std::size_t>(t)] = values[static_cast<std::size_t>(n - 1 - t)];
  return result;
}

outcome run_partial_barrier(variant which, bool checked) {
  const auto input = iota_values(100);
  return run_variant<KSYNC_HAZARD_VARIANTS(partial_barrier)>(which, checked, block_threads, input,
                                                             reversed(input, 100));
}

outcome run_divergent_barrier(variant which, bool checked) {
  const auto input = iota_values(block_threads);
  std::vector<int> expected(block_threads);
  for (int t = 0; t < block_threads; ++t) {
    const int source = block_threads - 1 - t;
    expected[static_cast<std::size_t>(t)] = source % 32 < 16 ? 2 * input[source] : input[source] + 1;
  }
  return run_variant<KSYNC_HAZARD_VARIANTS(divergent_barrier)>(which, checked, block_threads, input, expected);
}

outcome run_barrier_per_branch(variant which, bool checked) {
  const auto input = iota_values(block_threads);
  std::vector<int> expected(block_threads);
  for (int t = 0; t < block_threads; ++t)
    expected[static_cast<std::size_t>(t)] = input[static_cast<std::size_t>(t < 64 ? t + 64 : t - 64)];
  return run_variant<KSYNC_HAZARD_VARIANTS(barrier_per_branch)>(which, checked, block_threads, input, expected);
}

outcome run_missing_barrier(variant which, bool checked) {
  const auto input = iota_values(block_threads);
  std::vector<int> expected(block_threads);
  for (int t = 0; t < block_threads; ++t)
    expected[static_cast<std::size_t>(t)] = input[static_cast<std::size_t>((t + 1) % block_threads)];
  return run_variant<KSYNC_HAZARD_VARIANTS(missing_barrier)>(which, checked, block_threads, input, expected);
}

outcome run_warp_sync_across_warps(variant which, bool checked) {
  const auto input = iota_values(32);
  return run_variant<KSYNC_HAZARD_VARIANTS(warp_sync_across_warps)>(which, checked, 64, input, input);
}

}  // namespace

std::vector<hazard_case> block_cases() {
  return {{"01", "partial_barrier", true, run_partial_barrier},
          {"02", "divergent_barrier", false, run_divergent_barrier},
          {"03", "barrier_per_branch", true, run_barrier_per_branch},
          {"07", "missing_barrier", false, run_missing_barrier},
          {"11", "warp_sync_across_warps", false, run_warp_sync_across_warps}};
}

}  // namespace ksync::hazards
