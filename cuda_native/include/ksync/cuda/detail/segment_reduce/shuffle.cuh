// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// segment_form::shuffle — block::reduce_shuffle: warp shuffles, then one shared-memory exchange across the
// warps.
#pragma once

#include <ksync/cuda/detail/segment_reduce/block_collective.cuh>

namespace ksync::cuda::detail::segment_forms {

struct shuffle : block_collective<segment_form::shuffle, block::shuffle_storage> {};

}  // namespace ksync::cuda::detail::segment_forms
