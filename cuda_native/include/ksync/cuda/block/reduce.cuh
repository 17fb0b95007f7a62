// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Block-scope reductions, two forms. Both take one value per thread of a block of exactly BlockSize threads
// (blockDim.x == BlockSize, any size from 1 to 1024, multiples of 32 or not) and an operator from
// ksync/ops.hpp (the shared core).
//  - reduce_tree: the classic shared-memory tree, halved with __syncthreads while more than one warp works,
//    finished by warp 0 with __syncwarp.
//  - reduce_shuffle: each warp reduces with shuffles, then one shared-memory exchange across warps.
// Each form's shared memory is a type (tree_storage, shuffle_storage), as CUB's TempStorage is: declare one
// `__shared__` of it per reduction that may be in flight at once and pass it; callers never size an array.
// block::reduce picks the form by the storage it is given.
#pragma once

#include <ksync/cuda/warp/reduce.cuh>
#include <ksync/ops.hpp>

namespace ksync::cuda::block {

namespace detail {
__host__ __device__ constexpr int bit_ceil(int value) {
  int power = 1;
  while (power < value)
    power *= 2;
  return power;
}
}  // namespace detail

// The shared memory reduce_tree needs: one slot per thread.
template <class T, int BlockSize>
struct tree_storage {
  T slots[BlockSize];
};

// The shared memory reduce_shuffle needs: one partial per warp.
template <class T, int BlockSize>
struct shuffle_storage {
  T warp_partials[(BlockSize + 31) / 32];
};

// Returns the block's result in every lane of warp 0 (threads 0-31); the other warps get their own `value`
// back. Before reusing `storage`, the caller must __syncthreads().
template <int BlockSize, class T, class Op>
__device__ T reduce_tree(T value, tree_storage<T, BlockSize>& storage, Op op) {
  T* const scratch = storage.slots;
  static_assert(BlockSize >= 1 && BlockSize <= 1024, "ksync::cuda::block::reduce_tree: BlockSize must be in [1, 1024]");
  // Strides start at half the next power of two, so that a size like 100 folds [64, 100) onto [0, 36).
  constexpr int first_stride = detail::bit_ceil(BlockSize) / 2;
  const int tid = static_cast<int>(threadIdx.x);
  scratch[tid] = value;
  // Participation: all BlockSize threads of the block. Data: scratch[0, BlockSize), one slot per thread,
  // all valid (threads without input wrote the identity). Publishes every thread's value to the block.
  __syncthreads();
#pragma unroll
  for (int stride = first_stride; stride >= 64; stride /= 2) {
    if (tid < stride && tid + stride < BlockSize) scratch[tid] = op(scratch[tid], scratch[tid + stride]);
    // Participation: the whole block, threads without a pair included (the barrier is outside the `if`).
    // Data: scratch[0, min(stride, BlockSize)) holds this step's partials; publishes them to the next step.
    __syncthreads();
  }
  if (tid < 32) {  // from here one warp holds all remaining work; the branch is uniform over warp 0
    // The lanes of warp 0 that exist: all 32, or BlockSize when the whole block is one partial warp.
    constexpr unsigned lanes = BlockSize < 32 ? BlockSize : 32;
    constexpr int warp_stride = first_stride < 32 ? first_stride : 32;
#pragma unroll
    for (int stride = warp_stride; stride >= 1; stride /= 2) {
      // Reads scratch[stride, 2*stride) and writes scratch[0, stride): disjoint, so no lane's read races
      // another lane's write within a step.
      if (tid < stride && tid + stride < BlockSize) scratch[tid] = op(scratch[tid], scratch[tid + stride]);
      // Participation: the lanes of warp 0 that exist (mask computed from BlockSize, never read with
      // __activemask). Data: scratch[0, stride). Publishes this step's partials to the next step's readers.
      __syncwarp(warp::lanes_mask(lanes));
    }
    // Read inside warp 0's branch, after its last __syncwarp: written as `tid == 0 ? scratch[0] : value`
    // outside the branch, nvcc loads scratch[0] in every thread and selects afterwards, a read by the
    // other warps that races warp 0's writes (compute-sanitizer racecheck reported it on an H200).
    value = scratch[0];
  }
  return value;
}

// Returns the block's result in lane 0 of warp 0 (thread 0). Before reusing `storage`, the caller must
// __syncthreads().
template <int BlockSize, class T, class Op>
__device__ T reduce_shuffle(T value, shuffle_storage<T, BlockSize>& storage, Op op) {
  T* const scratch = storage.warp_partials;
  static_assert(BlockSize >= 1 && BlockSize <= 1024,
                "ksync::cuda::block::reduce_shuffle: BlockSize must be in [1, 1024]");
  constexpr int warps = (BlockSize + 31) / 32;
  const int tid = static_cast<int>(threadIdx.x);
  const int warp_index = tid / 32;
  // The last warp may be partial: its mask names only the lanes that exist.
  const unsigned lanes_here =
      static_cast<unsigned>(BlockSize - warp_index * 32 < 32 ? BlockSize - warp_index * 32 : 32);
  value = warp::reduce_prefix(lanes_here, value, op);
  if constexpr (warps == 1) {
    return value;
  } else {
    if (warp::lane_id() == 0) scratch[warp_index] = value;
    // Participation: all BlockSize threads. Data: scratch[0, warps), one partial per warp, written by each
    // warp's lane 0. Publishes the warp partials to warp 0.
    __syncthreads();
    if (warp_index == 0) {  // uniform over warp 0, which is full here (warps > 1 means BlockSize > 32)
      const T partial = tid < warps ? scratch[tid] : Op::template identity<T>();
      value = warp::reduce_prefix(32u, partial, op);
    }
    return value;
  }
}

// The form a storage type names: code that picks a form at compile time declares that form's storage and
// calls reduce (the segment forms do). The result lands as the form's own function says.
template <int BlockSize, class T, class Op>
__device__ T reduce(T value, tree_storage<T, BlockSize>& storage, Op op) {
  return reduce_tree<BlockSize>(value, storage, op);
}

template <int BlockSize, class T, class Op>
__device__ T reduce(T value, shuffle_storage<T, BlockSize>& storage, Op op) {
  return reduce_shuffle<BlockSize>(value, storage, op);
}

}  // namespace ksync::cuda::block
