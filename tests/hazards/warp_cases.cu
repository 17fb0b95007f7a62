// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Warp-scope hazards (docs/hazards.md): 04 __syncwarp(0xffffffff) reached by 16 lanes, 05 __activemask()
// taken as "who must arrive", 06 a warp exchange through shared memory with no __syncwarp. One warp each.
// `Checked` uses ksync's warp checks (warp/checked_sync.cuh) where they apply.
#include "catalog.hpp"

#include <ksync/cuda/warp/checked_sync.cuh>

namespace ksync::hazards {
namespace {

using ksync::cuda::warp::full_mask;

template <bool Checked>
__device__ void warp_barrier(unsigned int mask, unsigned int* ledger, unsigned int* violations) {
  if constexpr (Checked) {
    ksync::cuda::warp::checked_syncwarp(mask, ledger, violations);
  } else {
    __syncwarp(mask);  // participation and data: as at the call site
  }
}

// 04 — lanes write their slot; lanes 0..15 call __syncwarp(full mask) and read the mirrored slot; lanes
// 16..31 read without it.
template <bool Fixed, bool Checked>
__global__ void partial_syncwarp(const int* in, int* out, unsigned int* violations) {
  __shared__ int slots[32];
  __shared__ unsigned int ledger;
  const unsigned int lane = threadIdx.x;
  if constexpr (Checked) {
    if (lane == 0) ledger = 0;
    __syncwarp();  // participation: all 32 lanes; data: ledger; publishes its reset
  }
  slots[lane] = in[lane];
  if (Fixed || lane < 16) {
    // Fixed — participation: all 32 lanes (the full mask); data: slots[0, 32). Publishes every slot.
    // Hazard: the mask names 32 lanes but only lanes 0..15 reach this call.
    warp_barrier<Checked>(full_mask, &ledger, violations);
  }
  out[lane] = slots[31 - lane];
}

// The sum over `mask` by a butterfly: every lane of the mask must hold a value and call.
template <bool Checked>
__device__ int butterfly_sum(unsigned int mask, int value, unsigned int* violations) {
  for (int offset = 16; offset > 0; offset /= 2) {
    // The _sync shuffle synchronizes the lanes of `mask` itself: participation = mask; data = `value`.
    if constexpr (Checked) {
      value += ksync::cuda::warp::checked_shfl_xor(mask, value, offset, violations);
    } else {
      value += __shfl_xor_sync(mask, value, offset);
    }
  }
  return value;
}

// 05 — every lane should get the warp's total. The hazard calls a helper from inside each branch, and the
// helper takes its participants from __activemask(): who is executing now, i.e. only the branch's lanes.
template <bool Fixed, bool Checked>
__global__ void active_mask_as_participants(const int* in, int* out, unsigned int* violations) {
  const unsigned int lane = threadIdx.x;
  int value = in[lane];
  int total = 0;
  if constexpr (Fixed) {
    if (value % 3 == 0) {
      value *= 2;
    } else {
      value += 1;
    }
    // After the join; the participants are known (all 32 lanes hold a value), so the mask is computed.
    total = butterfly_sum<Checked>(full_mask, value, violations);
  } else if (value % 3 == 0) {
    value *= 2;
    total = butterfly_sum<Checked>(__activemask(), value, violations);
  } else {
    value += 1;
    total = butterfly_sum<Checked>(__activemask(), value, violations);
  }
  out[lane] = total;
}

// 06 — a warp exchanges values through shared memory: with independent thread scheduling (sm_70+) lanes
// are not in lockstep, so the read needs __syncwarp. Checked: the exchange goes through ksync's
// access_tracker, which finds the missing sync whatever order the lanes ran in.
template <bool Fixed, bool Checked>
__global__ void warp_exchange(const int* in, int* out, unsigned int* violations) {
  __shared__ int slots[32];
  __shared__ unsigned int shadow[32];
  __shared__ unsigned int epoch;
  const unsigned int lane = threadIdx.x;
  const ksync::cuda::warp::access_tracker tracker{shadow, &epoch};
  if constexpr (Checked) {
    shadow[lane] = ksync::cuda::warp::access_tracker::unwritten;
    if (lane == 0) epoch = 0;
    __syncwarp();  // participation: all 32 lanes; data: shadow, epoch; publishes their initial values
    tracker.store(slots, lane, in[lane]);
    // Fixed — participation: all 32 lanes; data: slots[0, 32). Publishes each lane's slot to its mirror.
    if constexpr (Fixed) tracker.sync(full_mask);
    out[lane] = tracker.load(slots, 31 - lane, violations);
  } else {
    slots[lane] = in[lane];
    // Fixed — participation: all 32 lanes; data: slots[0, 32). Publishes each lane's slot to its mirror.
    if constexpr (Fixed) __syncwarp();
    out[lane] = slots[31 - lane];
  }
}

std::vector<int> mirrored(const std::vector<int>& values) {
  return {values.rbegin(), values.rend()};
}

outcome run_partial_syncwarp(variant which, bool checked) {
  const auto input = iota_values(32);
  return run_variant<KSYNC_HAZARD_VARIANTS(partial_syncwarp)>(which, checked, 32, input, mirrored(input));
}

outcome run_active_mask(variant which, bool checked) {
  const auto input = iota_values(32);
  int total = 0;
  for (const int value : input)
    total += value % 3 == 0 ? 2 * value : value + 1;
  return run_variant<KSYNC_HAZARD_VARIANTS(active_mask_as_participants)>(which, checked, 32, input,
                                                                         std::vector<int>(32, total));
}

outcome run_warp_exchange(variant which, bool checked) {
  const auto input = iota_values(32);
  return run_variant<KSYNC_HAZARD_VARIANTS(warp_exchange)>(which, checked, 32, input, mirrored(input));
}

}  // namespace

std::vector<hazard_case> warp_cases() {
  return {{"04", "partial_syncwarp", true, run_partial_syncwarp},
          {"05", "active_mask_as_participants", true, run_active_mask},
          {"06", "warp_exchange", true, run_warp_exchange}};
}

}  // namespace ksync::hazards
