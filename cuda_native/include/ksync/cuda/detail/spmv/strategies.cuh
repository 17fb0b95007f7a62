// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The native strategies of ksync::cuda::spmv, one file each in this folder (reader.cuh is how they read x, not
// a strategy), and the one table from ksync::spmv_strategy to them (ksync/detail/strategy_table.hpp checks it
// against spmv_strategy_rows). `automatic` is resolved by ksync::detail::spmv_choice (a GPU: by the mean row
// length). Adding a strategy: its enumerator and row in ksync/types.hpp, a file here (a struct deriving from
// implements<id>, with a host `launch`), its row below.
#pragma once

#include <ksync/cuda/detail/spmv/lanes_per_row.cuh>
#include <ksync/cuda/detail/spmv/row_per_thread.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail {

using native_spmv_strategies = ksync::detail::strategy_table<strategy_half::native, spmv_strategies::row_per_thread,
                                                             spmv_strategies::lanes_per_row>;

}  // namespace ksync::cuda::detail
