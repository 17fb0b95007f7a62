// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The native forms of ksync::cuda::jacobi, one file each in this folder, and the one table from
// ksync::jacobi_form to them (ksync/detail/strategy_table.hpp). Complete at compile time: every form
// jacobi_form_rows (ksync/types.hpp) gives to the native half has exactly one row, and no other. Adding a
// form: its enumerator and row in ksync/types.hpp, a file here (a struct deriving
// from implements<id>, with `run`), its row below.
#pragma once

#include <ksync/cuda/detail/jacobi/cuda_graph.cuh>
#include <ksync/cuda/detail/jacobi/launch_per_phase.cuh>
#include <ksync/cuda/detail/jacobi/persistent_grid_sync.cuh>
#include <ksync/cuda/detail/jacobi/persistent_spin_barrier.cuh>
#include <ksync/cuda/detail/jacobi/persistent_volatile_barrier.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail {

using native_jacobi_forms =
    ksync::detail::strategy_table<strategy_half::native, jacobi_forms::persistent_grid_sync,
                                  jacobi_forms::persistent_spin_barrier, jacobi_forms::persistent_volatile_barrier,
                                  jacobi_forms::launch_per_phase, jacobi_forms::cuda_graph>;

}  // namespace ksync::cuda::detail
