// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::persistent_cluster — the persistent kernel on a grid of one thread-block cluster (sm_90), the
// cluster's hardware barrier (cluster.sync()) between the phases instead of a grid barrier through global
// memory. The vectors stay in global memory (in L2 at the sizes this form is for); only the barrier changes.
// The cluster is at most 16 blocks (the largest size the device takes for the kernel, non-portable above 8) and
// never more than the other persistent forms' grid (tuning.elements_per_thread and blocks_per_multiprocessor,
// which also pick the kernel's build as there): largest_cluster_size picks the largest power of two within
// both. So it suits small systems, where the grid barriers, not the bytes, decide an iteration; on larger
// ones its few multiprocessors bound the rate. Refused with std::invalid_argument, before any work, on a
// device or a build without clusters (grid/cluster.cuh).
#pragma once

#include <ksync/cuda/detail/cg/persistent.cuh>
#include <ksync/cuda/grid/cluster.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail::cg_forms {

struct persistent_cluster : ksync::detail::implements<cg_form::persistent_cluster> {
  template <class T, class Operator>
  static cg_scalars<T> run(const cg_run<T, Operator>& run) {
    launch_persistent(run, cluster_sync_barrier{}, [&](auto kernel, const grid_shape& grid, auto... arguments) {
      const int blocks = largest_cluster_size(persistent_where, kernel, cg_kernels::block_size, 0, run.buffers->device,
                                              static_cast<int>(grid.blocks));
      cluster_launch launch(persistent_where, kernel, cg_kernels::block_size, blocks, 0, run.stream);
      enqueue_start(run);  // after the cluster's checks, which throw before any work
      launch.launch(1, arguments...);
    });
    return wait_state(run, post_state(run));
  }
};

}  // namespace ksync::cuda::detail::cg_forms
