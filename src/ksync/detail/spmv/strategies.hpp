// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The portable strategies of ksync::spmv, one file each in this folder, and the one table from
// ksync::spmv_strategy to them (ksync/detail/strategy_table.hpp checks it against spmv_strategy_rows).
// `automatic` is resolved by spmv_choice (ksync/detail/spmv_choice.hpp), in the open. Adding a strategy: its
// enumerator and row in ksync/types.hpp, a file here (a struct deriving from implements<id>, with `run`), its
// row below.
#pragma once

#include <ksync/detail/spmv/lanes_per_row.hpp>
#include <ksync/detail/spmv/row_per_thread.hpp>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::detail {

using portable_spmv_strategies =
    strategy_table<strategy_half::portable, spmv_strategies::row_per_thread, spmv_strategies::lanes_per_row>;

}  // namespace ksync::detail
