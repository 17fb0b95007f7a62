// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// segment_form::tree — block::reduce_tree: a shared-memory tree, __syncthreads while several warps work,
// __syncwarp within the last one.
#pragma once

#include <ksync/cuda/block/reduce.cuh>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

namespace ksync::cuda::detail::segment_forms {

struct tree : ksync::detail::implements<segment_form::tree> {
  template <class T, int BlockSize>
  using storage = block::tree_storage<T, BlockSize>;

  template <int BlockSize, class T, class Op>
  __device__ static T reduce(T value, storage<T, BlockSize>& scratch, Op op) {
    return block::reduce_tree<BlockSize>(value, scratch, op);
  }
};

}  // namespace ksync::cuda::detail::segment_forms
