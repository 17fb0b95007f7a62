// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A block barrier that checks its own contract (docs/hazards.md, cases 1 and 3): every thread of the block
// must reach the *same* __syncthreads(). Neither mistake is always caught by compute-sanitizer: a thread
// that skips the barrier and exits is counted as arrived, and on sm_70+ the two barriers of an if/else are
// one hardware barrier (bar.sync 0), so nothing hangs and nothing is reported — the code just stops meaning
// what it says. For debug builds and tests; it costs two extra barriers per call.
//
//   __shared__ int ledger[BlockSize];   // one slot per thread
//   block::reset_barrier_ledger(ledger); __syncthreads();   // once, before the first checked barrier
//   block::checked_syncthreads(site, ledger, violations);  // instead of __syncthreads(); site: any id >= 0
//
// Each arriving thread writes its site into its slot; after the barrier each thread compares its
// neighbour's slot with its own. A neighbour that never arrived (not_arrived) or arrived at another site
// adds one to *violations (global memory).
#pragma once

namespace ksync::cuda::block {

inline constexpr int not_arrived = -1;

// Marks the calling thread's slot; call from every thread, then __syncthreads(), before the first check.
__device__ inline void reset_barrier_ledger(int* ledger) {
  ledger[threadIdx.x] = not_arrived;
}

__device__ inline void checked_syncthreads(int site, int* ledger, unsigned int* violations) {
  ledger[threadIdx.x] = site;
  // The barrier under check. Participation: every thread of the block (the contract). Data: ledger, one
  // slot per thread. Publishes each arriving thread's site to its neighbour.
  __syncthreads();
  const unsigned int neighbour = (threadIdx.x + 1) % blockDim.x;
  if (ledger[neighbour] != site) atomicAdd(violations, 1u);
  // Participation: the threads that passed the barrier above. Data: ledger. Publishes: every neighbour
  // has read this thread's slot before the slot is reset for the next check.
  __syncthreads();
  ledger[threadIdx.x] = not_arrived;
}

}  // namespace ksync::cuda::block
