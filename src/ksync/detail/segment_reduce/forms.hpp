// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The portable forms of ksync::segment_reduce, one file each in this folder, and the one table from
// ksync::segment_form to them (ksync/detail/strategy_table.hpp checks it against segment_form_rows). The
// native forms (tree, shuffle) reach ksync::cuda::segment_reduce through the bridge instead. Adding a form:
// its enumerator and row in ksync/types.hpp, a file here (a struct deriving from implements<id>, with
// `reduce`), its row below.
#pragma once

#include <ksync/detail/segment_reduce/team_reduce.hpp>
#include <ksync/detail/segment_reduce/team_thread_range.hpp>
#include <ksync/detail/segment_reduce/team_vector_range.hpp>
#include <ksync/detail/segment_reduce/thread_vector_range.hpp>

namespace ksync::detail {

using portable_segment_forms =
    strategy_table<strategy_half::portable, segment_forms::team_reduce, segment_forms::team_thread_range,
                   segment_forms::team_vector_range, segment_forms::thread_vector_range>;

}  // namespace ksync::detail
