// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// jacobi_form::persistent_grid_sync — every phase in one cooperative kernel, cooperative_groups'
// grid.sync() between rounds (a persistent kernel); the grid comes from the occupancy API.
#pragma once

#include <ksync/cuda/detail/jacobi/context.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail::jacobi_forms {

struct persistent_grid_sync : ksync::detail::implements<jacobi_form::persistent_grid_sync> {
  template <class T>
  static void run(const jacobi_run<T>& run) {
    const auto kernel = jacobi_kernels::jacobi_grid_sync_kernel<T>;
    launch_cooperative(where, kernel, persistent_grid(run, kernel), run.stream, run.u, run.scratch, run.n, run.plan);
  }
};

}  // namespace ksync::cuda::detail::jacobi_forms
