// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Block-scope reduction through a shared-memory tree, as seed 001 teaches it: the block halves its values
// with __syncthreads while more than one warp takes part, then the last warp finishes with __syncwarp.
#pragma once

#include <ksync/cuda/detail/operators.cuh>

namespace ksync::cuda::block {

// Combines one value per thread of a block of exactly BlockSize threads (blockDim.x == BlockSize) and
// returns the result in every lane of warp 0 (threads 0-31); the other warps get their own `value` back. `scratch` is
// BlockSize elements of shared memory; before reusing it, the caller must __syncthreads().
template <int BlockSize, class T, class Op>
__device__ T reduce_tree(T value, T* scratch, Op op) {
  static_assert(BlockSize >= 64 && BlockSize <= 1024 && (BlockSize & (BlockSize - 1)) == 0,
                "ksync::cuda::block::reduce_tree: BlockSize must be a power of two in [64, 1024]");
  const unsigned tid = threadIdx.x;
  scratch[tid] = value;
  // Participation: all BlockSize threads of the block. Data: scratch[0, BlockSize), one slot per thread,
  // all valid (threads without input wrote the identity). Publishes every thread's value to the block.
  __syncthreads();
#pragma unroll
  for (int stride = BlockSize / 2; stride >= 64; stride /= 2) {
    if (tid < stride) scratch[tid] = op(scratch[tid], scratch[tid + stride]);
    // Participation: the whole block, threads without a pair included (the barrier is outside the `if`).
    // Data: scratch[0, stride) holds this step's partials. Publishes them to the next, half-size step.
    __syncthreads();
  }
  if (tid < 32) {  // one warp holds all remaining work; the branch is uniform over warp 0
#pragma unroll
    for (int stride = 32; stride >= 1; stride /= 2) {
      // Reads scratch[stride, 2*stride) and writes scratch[0, stride): disjoint, so no lane's read races
      // another lane's write within a step.
      if (tid < stride) scratch[tid] = op(scratch[tid], scratch[tid + stride]);
      // Participation: all 32 lanes of warp 0 (full mask: the branch admits the whole warp). Data:
      // scratch[0, stride). Publishes this step's partials to the lanes that read them in the next step.
      __syncwarp();
    }
    // Read inside warp 0's branch, after its last __syncwarp: written as `tid == 0 ? scratch[0] : value`
    // outside the branch, nvcc loads scratch[0] in every thread and selects afterwards, a read by the
    // other warps that races warp 0's writes (compute-sanitizer racecheck reported it on an H200).
    value = scratch[0];
  }
  return value;
}

}  // namespace ksync::cuda::block
