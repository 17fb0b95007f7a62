// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Warp synchronization that checks its own contract (docs/hazards.md, cases 4 and 5). compute-sanitizer
// reports neither mistake on an H200: a __syncwarp(mask) that some lanes of the mask never reach (racecheck
// warns at most), and a shuffle that reads a lane outside its mask (the mask taken from __activemask() in
// divergent code). For debug builds and tests.
//
//   __shared__ unsigned int ledger[BlockSize / 32];   // one word per warp, zero before the first check
//   warp::checked_syncwarp(mask, &ledger[threadIdx.x / 32], violations);   // instead of __syncwarp(mask)
//   v += warp::checked_shfl_xor(mask, v, offset, violations);              // instead of __shfl_xor_sync
//
// Each finding adds one to *violations (global memory), per lane.
#pragma once

#include <ksync/cuda/warp/reduce.cuh>

namespace ksync::cuda::warp {

// __syncwarp(mask), checked: the caller is in the mask, and every lane of the mask arrived. Arrival is
// recorded in `ledger` (this warp's shared word) before the sync and read after it.
__device__ inline void checked_syncwarp(unsigned int mask, unsigned int* ledger, unsigned int* violations) {
  const unsigned int bit = 1u << lane_id();
  if ((mask & bit) == 0) atomicAdd(violations, 1u);  // a caller outside its own mask
  atomicOr(ledger, bit);
  // The sync under check. Participation: every lane of `mask` (the contract). Data: *ledger. Publishes
  // each arriving lane's bit to the others.
  __syncwarp(mask);
  if ((atomicOr(ledger, 0u) & mask) != mask) atomicAdd(violations, 1u);
  // Participation: the lanes that passed the sync above. Data: *ledger. Publishes: every lane has read the
  // ledger before any clears its bit.
  __syncwarp(mask);
  atomicAnd(ledger, ~bit);
  // Participation: as above. Data: *ledger. Publishes the cleared bits before the next checked sync.
  __syncwarp(mask);
}

// __shfl_xor_sync(mask, value, lane_mask), checked: the lane read from is in the mask (reading a lane
// outside it is undefined: the value may be anything).
template <class T>
__device__ T checked_shfl_xor(unsigned int mask, T value, int lane_mask, unsigned int* violations) {
  const unsigned int source = lane_id() ^ static_cast<unsigned int>(lane_mask);
  if (((mask >> source) & 1u) == 0) atomicAdd(violations, 1u);
  return __shfl_xor_sync(mask, value, lane_mask);
}

}  // namespace ksync::cuda::warp
