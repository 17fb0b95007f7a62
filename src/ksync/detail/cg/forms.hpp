// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The portable CG forms, one file each in this folder, and the one table from ksync::cg_form to them
// (ksync/detail/strategy_table.hpp). Complete at compile time: every form cg_form_rows gives to the portable
// half or to both has exactly one row. The native forms never reach this table: ksync::cg hands them to the
// bridge on Kokkos::Cuda, and refuses them elsewhere.
#pragma once

#include <ksync/detail/cg/device_scalars.hpp>
#include <ksync/detail/cg/fused.hpp>
#include <ksync/detail/cg/host_scalars.hpp>
#include <ksync/detail/cg/kokkos_graph.hpp>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::detail {

using portable_cg_forms = strategy_table<strategy_half::portable, cg::forms::host_scalars, cg::forms::device_scalars,
                                         cg::forms::fused, cg::forms::kokkos_graph>;

}  // namespace ksync::detail
