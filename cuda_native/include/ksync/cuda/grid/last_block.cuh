// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The last-block (single-pass) reduction's finish, a grid-scope building block: every block publishes its value and
// takes a ticket, and the block that takes the last ticket combines all of them (a lone block stores its own value),
// with no grid barrier and no second kernel.
//   finish_last_block  publish, take a ticket, and (in the last block) fold every partial into the result;
//   fold_partials      op over partials other blocks wrote, read through volatile loads, by one block;
//   store_result       the result's one store (a plain T*; the native reductions add their own target).
// Used by the native reduction strategies (detail/reduce/) and CG's fused and persistent kernels.
#pragma once

#include <ksync/cuda/block/reduce.cuh>

namespace ksync::cuda::detail {

// The one store of a result that is a plain device pointer.
template <class T>
__device__ void store_result(T* result, T value) {
  *result = value;
}

// Thread 0 gets op over partials[0, count), which other blocks wrote: read through volatile loads (from L2,
// never from a possibly stale L1 line). Called by every thread of the block (block::reduce_shuffle inside).
template <int BlockSize, class T, class Op>
__device__ T fold_partials(const T* partials, unsigned int count, block::shuffle_storage<T, BlockSize>& scratch,
                           Op op) {
  T value = Op::template identity<T>();
  for (unsigned int i = threadIdx.x; i < count; i += BlockSize) {
    const T partial = *static_cast<const volatile T*>(partials + i);
    value = op(value, partial);
  }
  return block::reduce_shuffle<BlockSize>(value, scratch, op);
}

// The last-block (single-pass) reduction's finish. Every thread of the block calls; thread 0 holds `value`, this
// block's (or cluster's) result. It publishes the value in partials[slot], takes a ticket, and the block that takes the
// last of `slots` tickets combines all partials into `result` (store_result: a T*, or a target with an overload of
// its own) and resets the ticket for the next call. With one slot there is nothing to combine: thread 0 stores
// `value` at once, and the ticket and partials are not touched. Returns, in every thread, whether this block was
// that last one (and so may act on the result, which its thread 0 wrote).
template <int BlockSize, class T, class Result, class Op>
__device__ bool finish_last_block(T value, unsigned int slot, unsigned int slots, T* partials, unsigned int* ticket,
                                  const Result& result, block::shuffle_storage<T, BlockSize>& scratch, Op op) {
  if (slots == 1) {  // uniform: the only block (or cluster) is the last; no fence, ticket or second fold
    if (threadIdx.x == 0) store_result(result, value);
    return true;
  }
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partials[slot] = value;
    __threadfence();  // the partial is visible device-wide before the ticket that announces it
    is_last = atomicAdd(ticket, 1u) == slots - 1;
  }
  // Participation: every thread of the block (the call is block-uniform). Data: is_last, written by thread
  // 0. Publishes whether this block finishes the reduction.
  __syncthreads();
  if (is_last) {      // block-uniform
    __threadfence();  // every other block's partial was fenced before its ticket; order our reads after ours
    const T total = fold_partials<BlockSize>(partials, slots, scratch, op);
    if (threadIdx.x == 0) {
      *ticket = 0;  // the next call on this stream (its workspace) starts from zero
      store_result(result, total);
    }
  }
  return is_last;
}

}  // namespace ksync::cuda::detail
