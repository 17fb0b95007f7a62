// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// segment_form::tree — block::reduce_tree: a shared-memory tree, __syncthreads while several warps work,
// __syncwarp within the last one.
#pragma once

#include <ksync/cuda/detail/segment_reduce/block_collective.cuh>

namespace ksync::cuda::detail::segment_forms {

struct tree : block_collective<segment_form::tree, block::tree_storage> {};

}  // namespace ksync::cuda::detail::segment_forms
