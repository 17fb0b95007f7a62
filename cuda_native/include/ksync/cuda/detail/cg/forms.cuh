// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The native CG forms, one file each in this folder, and the one table from ksync::cg_form to them
// (ksync/detail/strategy_table.hpp). Complete at compile time: every form cg_form_rows gives to the native
// half or to both has exactly one row. Adding a form: its enumerator and row in ksync/cg_types.hpp, a file
// here (a struct deriving from implements<id>, with `run`), and its row below.
#pragma once

#include <ksync/cuda/detail/cg/cuda_graph.cuh>
#include <ksync/cuda/detail/cg/device_scalars.cuh>
#include <ksync/cuda/detail/cg/fused.cuh>
#include <ksync/cuda/detail/cg/host_scalars.cuh>
#include <ksync/cuda/detail/cg/persistent_cluster.cuh>
#include <ksync/cuda/detail/cg/persistent_grid_sync.cuh>
#include <ksync/cuda/detail/cg/persistent_spin_barrier.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail {

using native_cg_forms =
    ksync::detail::strategy_table<strategy_half::native, cg_forms::host_scalars, cg_forms::device_scalars,
                                  cg_forms::fused, cg_forms::cuda_graph, cg_forms::persistent_grid_sync,
                                  cg_forms::persistent_spin_barrier, cg_forms::persistent_cluster>;

}  // namespace ksync::cuda::detail
