// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Warp synchronization that checks its own contract (docs/hazards.md, cases 4, 5 and 6). On an H200
// compute-sanitizer reports none of these mistakes as an error: a __syncwarp(mask) that some lanes of the
// mask never reach (racecheck warns at most), a shuffle that reads a lane outside its mask (the mask taken
// from __activemask() in divergent code), and a lane reading a shared slot another lane of its warp wrote
// with no __syncwarp between (racecheck warns). For debug builds and tests.
//
//   __shared__ unsigned int ledger[BlockSize / 32];   // one word per warp, zero before the first check
//   warp::checked_syncwarp(mask, &ledger[threadIdx.x / 32], violations);   // instead of __syncwarp(mask)
//   v += warp::checked_shfl_xor(mask, v, offset, violations);              // instead of __shfl_xor_sync
//
//   warp::access_tracker tracker{shadow, &epoch};  // shared: one shadow word per tracked slot, one epoch
//   tracker.store(slots, i, value);  ...  tracker.sync(mask);  ...  v = tracker.load(slots, j, violations);
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

// Tracks one warp's shared-memory exchange: each store records (sync epoch, writing lane) in the slot's
// shadow word; sync() is __syncwarp(mask) that also advances the epoch; a load of a slot another lane
// wrote in the current epoch, or of a slot nobody wrote, is a violation — whichever order the lanes ran in,
// so a missing __syncwarp is found every time, not only when the interleaving bites. Before use every
// shadow word holds `unwritten` and the epoch 0 (then a __syncwarp).
struct access_tracker {
  static constexpr unsigned int unwritten = 0xffffffffu;
  unsigned int* shadow;  // one word per tracked slot
  unsigned int* epoch;   // this warp's sync count

  template <class T>
  __device__ void store(T* slots, unsigned int index, const T& value) const {
    slots[index] = value;
    *static_cast<volatile unsigned int*>(shadow + index) =
        (*static_cast<volatile unsigned int*>(epoch) << 5) | lane_id();
  }

  template <class T>
  __device__ T load(const T* slots, unsigned int index, unsigned int* violations) const {
    const unsigned int record = *static_cast<volatile unsigned int*>(shadow + index);
    const unsigned int now = *static_cast<volatile unsigned int*>(epoch);
    if (record == unwritten || ((record & 31u) != lane_id() && (record >> 5) == now)) atomicAdd(violations, 1u);
    return slots[index];
  }

  __device__ void sync(unsigned int mask) const {
    // Participation: every lane of `mask`. Data: the tracked slots and their shadows. Publishes every store
    // made before it to the lanes of the mask.
    __syncwarp(mask);
    if (lane_id() == static_cast<unsigned int>(__ffs(static_cast<int>(mask)) - 1)) ++*epoch;
    // Participation: as above. Data: *epoch. Publishes the new epoch before any lane loads.
    __syncwarp(mask);
  }
};

}  // namespace ksync::cuda::warp
