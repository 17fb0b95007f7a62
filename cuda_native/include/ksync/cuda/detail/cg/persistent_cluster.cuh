// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::persistent_cluster — the persistent kernel on a grid of one thread-block cluster (sm_90), the
// cluster's hardware barrier (cluster.sync()) between the phases instead of a grid barrier through global
// memory. The vectors stay in global memory; only the barrier and the grid change. The cluster has
// tuning.cluster_blocks blocks, by default the largest size the device takes for the kernel (16 where it takes
// the non-portable size; an H100 took 16) but no more than one block per 256 unknowns (largest_cluster_size);
// tuning.elements_per_thread does not size it. At most 16 blocks of 4 partial slots: far fewer than the
// solver's partial_slots (2 per resident block of the whole device). The grid's check and the kernel's build
// come from launch_persistent (persistent.cuh) as for the grid-wide forms, from the device's co-resident grid,
// not the cluster: tuning.blocks_per_multiprocessor is refused where that many blocks cannot be resident and
// picks the held build where the roomy one does not fit them, and otherwise the roomy build runs (every
// measured row ran it). Measured (docs/solvers.md, "One cluster"): faster than the grid-wide forms at small m,
// slower from m = 256 on, where more blocks were always faster (so, by inference, the cluster's few
// multiprocessors bound it). Refused with std::invalid_argument, before any work, on a device or a build
// without clusters and for a cluster size the device does not take (grid/cluster.cuh).
#pragma once

#include <ksync/cuda/detail/cg/persistent.cuh>
#include <ksync/cuda/grid/cluster.cuh>
#include <ksync/detail/strategy_table.hpp>

#include <algorithm>
#include <cstdint>

namespace ksync::cuda::detail::cg_forms {

struct persistent_cluster : ksync::detail::implements<cg_form::persistent_cluster> {
  template <class T, class Operator>
  static cg_scalars<T> run(const cg_run<T, Operator>& run) {
    launch_persistent(run, cluster_sync_barrier{}, [&](auto kernel, const grid_shape& /*grid*/, auto... arguments) {
      int blocks = run.tuning.cluster_blocks;
      if (blocks == 0) {
        const std::int64_t rows_of_blocks = (run.n() + cg_kernels::block_size - 1) / cg_kernels::block_size;
        const auto at_most = static_cast<int>(std::clamp<std::int64_t>(rows_of_blocks, 1, cluster_sizes.back()));
        blocks =
            largest_cluster_size(persistent_where, kernel, cg_kernels::block_size, 0, run.buffers->device, at_most);
      }
      cluster_launch launch(persistent_where, kernel, cg_kernels::block_size, blocks, 0, run.stream);
      enqueue_start(run);  // after the cluster's checks, which throw before any work
      launch.launch(1, arguments...);
    });
    return wait_state(run, post_state(run));
  }
};

}  // namespace ksync::cuda::detail::cg_forms
