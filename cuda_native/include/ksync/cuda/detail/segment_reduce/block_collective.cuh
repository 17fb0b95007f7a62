// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What a segment form that is one of ksync::cuda::block's reductions derives from: the form's enumerator and
// that reduction's storage; block::reduce picks the reduction by the storage. Not a form itself (forms.cuh
// lists them): a form with its own algorithm writes `storage` and `reduce` out, as the serial example in
// docs/architecture.md does.
#pragma once

#include <ksync/cuda/block/reduce.cuh>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

namespace ksync::cuda::detail::segment_forms {

template <segment_form Id, template <class, int> class Storage>
struct block_collective : ksync::detail::implements<Id> {
  template <class T, int BlockSize>
  using storage = Storage<T, BlockSize>;

  template <int BlockSize, class T, class Op>
  __device__ static T reduce(T value, storage<T, BlockSize>& scratch, Op op) {
    return block::reduce<BlockSize>(value, scratch, op);
  }
};

}  // namespace ksync::cuda::detail::segment_forms
