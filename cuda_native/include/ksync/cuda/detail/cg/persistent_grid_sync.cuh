// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::persistent_grid_sync — the whole solve in one cooperative kernel, cooperative_groups' grid.sync()
// between the phases (a persistent kernel): no launch and no host look until CG stops.
#pragma once

#include <ksync/cuda/detail/cg/persistent.cuh>
#include <ksync/cuda/grid/barrier.cuh>  // grid_sync_barrier
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail::cg_forms {

struct persistent_grid_sync : ksync::detail::implements<cg_form::persistent_grid_sync> {
  template <class T, class Operator>
  static cg_scalars<T> run(const cg_run<T, Operator>& run) {
    check_cooperative_launch(persistent_where, run.buffers->device);  // before any work is enqueued
    launch_persistent(run, grid_sync_barrier{}, [&](auto kernel, const grid_shape& grid, auto... arguments) {
      enqueue_start(run);  // after the grid's checks, which throw before any work
      detail::cooperative_launch(kernel, grid, run.stream, arguments...);
    });
    return wait_state(run, post_state(run));
  }
};

}  // namespace ksync::cuda::detail::cg_forms
