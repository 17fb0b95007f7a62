// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// segment_form::shuffle — block::reduce_shuffle: warp shuffles, then one shared-memory exchange across the
// warps.
#pragma once

#include <ksync/cuda/block/reduce.cuh>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

namespace ksync::cuda::detail::segment_forms {

struct shuffle : ksync::detail::implements<segment_form::shuffle> {
  template <class T, int BlockSize>
  using storage = block::shuffle_storage<T, BlockSize>;

  template <int BlockSize, class T, class Op>
  __device__ static T reduce(T value, storage<T, BlockSize>& scratch, Op op) {
    return block::reduce_shuffle<BlockSize>(value, scratch, op);
  }
};

}  // namespace ksync::cuda::detail::segment_forms
