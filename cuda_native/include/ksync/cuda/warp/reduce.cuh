// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Warp-scope reduction and broadcast with explicit participation masks. The mask names the
// lanes that must arrive; every lane named must call with the same mask, and no other lane may.
//  - Where the participants are known (convergent code, a partial last warp), compute the mask:
//    lanes_mask(count). Never read it with __activemask() there: that reports who happens to be executing
//    now, not who must arrive.
//  - Inside a divergent branch, __activemask() read in that branch is the set of lanes that took it, and is
//    the right mask for a reduction among them.
// The _sync intrinsics used here synchronize the lanes of the mask themselves (no separate __syncwarp).
#pragma once

namespace ksync::cuda::warp {

inline constexpr unsigned full_mask = 0xffffffffu;

// The lane of the calling thread within its warp (blocks are one-dimensional throughout ksync).
__device__ inline unsigned lane_id() {
  return threadIdx.x % 32u;
}

// The mask of lanes [0, count), count in [0, 32].
__host__ __device__ constexpr unsigned lanes_mask(unsigned count) {
  return count >= 32u ? full_mask : ((1u << count) - 1u);
}

// Returns `value` of `src_lane` to every lane of `mask` (src_lane must be in the mask).
template <class T>
__device__ T broadcast(unsigned mask, T value, unsigned src_lane) {
  return __shfl_sync(mask, value, static_cast<int>(src_lane));
}

// Reduces over lanes [0, count) of the warp — the mask is computed from `count`, the lanes that exist or
// hold data — and returns the result in lane 0. Every lane in [0, count) must call, with the same count.
template <class T, class Op>
__device__ T reduce_prefix(unsigned count, T value, Op op) {
  const unsigned mask = lanes_mask(count);
  const unsigned lane = lane_id();
#pragma unroll
  for (unsigned offset = 16; offset > 0; offset /= 2) {
    // Every lane of the mask shuffles (the participation bound); only partners inside [0, count) are
    // combined (the data bound): a lane past the end would hand back its own, unrelated value.
    const T other = __shfl_down_sync(mask, value, offset);
    if (lane + offset < count) value = op(value, other);
  }
  return value;
}

// Reduces over a full warp and returns the result to every lane, by a butterfly: in each round lanes i and
// i ^ offset combine the same two values, so with a commutative op every lane ends with the same bits.
// Every lane of the warp must call. Lets several warps each form the same total without a block barrier.
template <class T, class Op>
__device__ T reduce_all(T value, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    // Participation: all 32 lanes (full mask). Data: every lane holds a value (the identity where none).
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}

namespace detail {
// The lane holding the `rank`-th set bit of `mask` (rank counted from 0).
__device__ inline unsigned nth_lane(unsigned mask, unsigned rank) {
  for (; rank > 0; --rank)
    mask &= mask - 1u;
  return static_cast<unsigned>(__ffs(static_cast<int>(mask)) - 1);
}
}  // namespace detail

// Reduces over the lanes of an arbitrary `mask` (for instance __activemask() read inside a branch) and
// returns the result to every lane of the mask. Lanes are ranked by their position in the mask, then
// combined as a tree over the ranks.
template <class T, class Op>
__device__ T reduce(unsigned mask, T value, Op op) {
  const unsigned lane = lane_id();
  const unsigned count = static_cast<unsigned>(__popc(mask));
  const unsigned rank = static_cast<unsigned>(__popc(mask & ((1u << lane) - 1u)));
  for (unsigned offset = 1; offset < count; offset *= 2) {
    const bool has_partner = rank % (2 * offset) == 0 && rank + offset < count;
    const unsigned source = has_partner ? detail::nth_lane(mask, rank + offset) : lane;
    // Participation: exactly the lanes of `mask`, every round. Data: only a rank that owns a partner in
    // range combines; the others fetch their own value and ignore it.
    const T other = __shfl_sync(mask, value, static_cast<int>(source));
    if (has_partner) value = op(value, other);
  }
  return broadcast(mask, value, detail::nth_lane(mask, 0));
}

}  // namespace ksync::cuda::warp
