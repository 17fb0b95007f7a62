// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The portable forms of ksync::jacobi, one file each in this folder, and the one table from
// ksync::jacobi_form to them (ksync/detail/strategy_table.hpp). Complete at compile time: every form
// jacobi_form_rows (ksync/types.hpp) gives to the portable half has exactly one row, and no other; the
// native forms reach ksync::cuda::jacobi through the bridge instead. Adding a form: its enumerator and row in
// ksync/types.hpp, a file here (a struct deriving from implements<id>, with `run`), its row below.
#pragma once

#include <ksync/detail/jacobi/kokkos_graph.hpp>
#include <ksync/detail/jacobi/kokkos_parallel_for.hpp>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::detail {

using portable_jacobi_forms =
    strategy_table<strategy_half::portable, jacobi_forms::kokkos_parallel_for, jacobi_forms::kokkos_graph>;

}  // namespace ksync::detail
