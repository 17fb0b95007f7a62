// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::persistent_cluster — the persistent kernel on a grid of one thread-block cluster (sm_90), the
// cluster's hardware barrier (cluster.sync()) between the phases instead of a grid barrier through global
// memory. The vectors stay in global memory (in L2 at the sizes this form is for); only the barrier and the
// grid change. The cluster has tuning.cluster_blocks blocks, by default the largest size the device takes for
// the kernel (16 on an H100 or H200, a non-portable size) but no more than one block per 256 unknowns
// (largest_cluster_size); tuning.elements_per_thread does not size it. The grid's checks and the kernel's
// build are the other persistent forms' (persistent.cuh: blocks_per_multiprocessor is checked against what is
// resident, and picks the build). So it suits small systems, where the barriers, not the bytes, decide an
// iteration; on larger ones its few multiprocessors bound the rate (docs/solvers.md). Refused with
// std::invalid_argument, before any work, on a device or a build without clusters and for a cluster size the
// device does not take (grid/cluster.cuh).
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
