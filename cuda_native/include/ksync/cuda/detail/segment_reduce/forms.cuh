// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The native forms of ksync::cuda::segment_reduce, one file each in this folder (block_collective.cuh is
// their shared base, not a form), and the one table from ksync::segment_form to them
// (ksync/detail/strategy_table.hpp checks it against segment_form_rows). Adding a form: its enumerator and row
// in ksync/types.hpp, a file here (a struct deriving from implements<id>, with its shared-memory `storage` and
// a device-side `reduce`; or from block_collective<id, storage> when it is one of block/'s reductions), its
// row below.
#pragma once

#include <ksync/cuda/detail/segment_reduce/shuffle.cuh>
#include <ksync/cuda/detail/segment_reduce/tree.cuh>

namespace ksync::cuda::detail {

using native_segment_forms =
    ksync::detail::strategy_table<strategy_half::native, segment_forms::tree, segment_forms::shuffle>;

}  // namespace ksync::cuda::detail
