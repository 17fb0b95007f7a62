// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::persistent_cluster — the persistent kernel on a grid of one thread-block cluster (sm_90), the cluster's
// hardware barrier (cluster.sync()) between the phases instead of a grid barrier through global memory.
// tuning.cluster_vectors says where the vectors live: by default in the cluster's shared memory where the resident
// kernel of the recurrence runs (cluster_resident.cuh, classic; cluster_pipelined.cuh, pipelined:
// blocks_per_multiprocessor = 0 and a block's slabs fit the shared memory the device gives a block) and, for the
// classic recurrence, a block has more than one row a thread (resident_from_rows), in global memory otherwise, with the
// grid-wide forms' kernels (kernels.cuh, pipelined_kernels.cuh). The cluster has tuning.cluster_blocks blocks, by
// default the largest size the device takes for the global-memory kernel (16 where it takes the non-portable size; an
// H100 took 16) but no more than one block per 256 unknowns (largest_cluster_size); tuning.elements_per_thread does not
// size it. At most 16 blocks of 4 partial slots: far fewer than the solver's partial_slots (2 per resident block of the
// whole device). In global memory, the grid's check and the kernel's build come from launch_persistent (persistent.cuh)
// as for the grid-wide forms, from the device's co-resident grid, not the cluster: tuning.blocks_per_multiprocessor is
// refused where that many blocks cannot be resident and picks the held build where the roomy one does not fit them, and
// otherwise the roomy build runs. Measured (docs/solvers.md, "One cluster"). Refused with std::invalid_argument, before
// any work, on a device or a build without clusters, for a cluster size the device does not take (grid/cluster.cuh),
// and for cluster_vectors = shared_memory where the resident kernel cannot run.
#pragma once

#include <ksync/cuda/detail/cg/cluster_pipelined.cuh>
#include <ksync/cuda/detail/cg/cluster_resident.cuh>
#include <ksync/cuda/detail/cg/persistent.cuh>
#include <ksync/cuda/grid/cluster.cuh>
#include <ksync/cuda/runtime.hpp>
#include <ksync/detail/strategy_table.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ksync::cuda::detail::cg_forms {

// The cluster's blocks: tuning.cluster_blocks, or the largest size the device takes for the global-memory
// kernel, at most one block per 256 unknowns.
template <class T, class Operator, class Kernel>
int cluster_blocks_of(const cg_run<T, Operator>& run, Kernel kernel) {
  if (run.tuning.cluster_blocks != 0) return run.tuning.cluster_blocks;
  const std::int64_t rows_of_blocks = (run.n() + cg_kernels::block_size - 1) / cg_kernels::block_size;
  const auto at_most = static_cast<int>(std::clamp<std::int64_t>(rows_of_blocks, 1, cluster_sizes.back()));
  return largest_cluster_size(persistent_where, kernel, cg_kernels::block_size, 0, run.buffers->device, at_most);
}

// Automatic placement keeps the vectors in shared memory only where a block has more rows than this (more than
// one a thread). Measured with each placement asked for (H100s, double, the stencil, the default cluster: 16
// blocks by inference, so 256, 1,024 and 4,096 rows a block; µs an iteration, shared against global): at bc76a60
// (docs/results/2026-12-06-h100-bc76a60) 4.17 against 3.84 at m = 64, 5.53 against 5.74 at m = 128, 10.76
// against 13.76 at m = 256; with each block's own direction entries formed once (docs/results/2026-12-06-h100-16662b7,
// a later call) 4.41 against 4.05, 5.40 against 5.97, 9.92 against 14.17. My reading, not profiled: at one row a
// thread the resident kernel's extra work per row (the direction stored before a block barrier, the range test
// of every entry read) costs more than the L2 trips it saves.
inline constexpr int resident_from_rows = cg_kernels::block_size;
// The pipelined resident kernel beat its global placement at one row a thread too (3.78 against 4.25 µs at m = 64,
// docs/results/2026-12-06-h100-16662b7): automatic placement keeps its vectors in shared memory at every slab.
inline constexpr int pipelined_resident_from_rows = 0;

// Launches the resident kernel of the run's recurrence (after the start) and returns true where it runs; returns
// false, having done nothing, where automatic placement leaves the vectors in global memory; throws
// std::invalid_argument, having done nothing, where cluster_vectors = shared_memory cannot run.
template <class T, class Operator>
bool launch_resident(const cg_run<T, Operator>& run) {
  const cg_cluster_vectors placement = run.tuning.cluster_vectors;
  if (placement == cg_cluster_vectors::global_memory) return false;
  const bool asked = placement == cg_cluster_vectors::shared_memory;
  if (run.tuning.blocks_per_multiprocessor != 0) {
    check_argument(!asked, persistent_where,
                   "tuning.cluster_vectors = shared_memory runs one block a multiprocessor; "
                   "tuning.blocks_per_multiprocessor = ",
                   run.tuning.blocks_per_multiprocessor, " needs cluster_vectors = global_memory or automatic");
    return false;
  }
  const bool weighted = run.inverse_diagonal != nullptr;
  // kernel: the resident kernel; vectors: the slabs it keeps a block; from_rows: automatic placement runs it only
  // on slabs of more rows than this; global_kernel: the global-memory kernel of the same recurrence, which sizes
  // the cluster; launch_with(launch, slab) launches it with its arguments.
  const auto fit_and_launch = [&](auto kernel, int vectors, int from_rows, auto global_kernel, auto&& launch_with) {
    require_cluster_code(persistent_where, reinterpret_cast<const void*>(kernel), run.buffers->device);
    const int blocks = cluster_blocks_of(run, global_kernel);
    const auto slab = static_cast<int>((run.n() + blocks - 1) / blocks);
    if (!asked && slab <= from_rows) return false;
    const std::size_t bytes = static_cast<std::size_t>(vectors) * static_cast<std::size_t>(slab) * sizeof(T);
    const device_guard on_device(run.buffers->device);
    int room = 0;
    KSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&room, cudaDevAttrMaxSharedMemoryPerBlockOptin, run.buffers->device));
    cudaFuncAttributes attributes{};
    KSYNC_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    const std::size_t free_bytes = static_cast<std::size_t>(room) -
                                   std::min<std::size_t>(attributes.sharedSizeBytes, static_cast<std::size_t>(room));
    if (bytes > free_bytes) {
      check_argument(!asked, persistent_where, "tuning.cluster_vectors = shared_memory: ", run.n(),
                     " unknowns on a cluster of ", blocks, " blocks need ", bytes,
                     " bytes of shared memory a block for their vectors; device ", run.buffers->device, " gives ",
                     free_bytes);
      return false;
    }
    // The kernel's limit is the device's whole free room, not this solve's bytes: every solve on the device sets
    // the same value, so host threads solving different sizes at once cannot lower it under another's launch.
    KSYNC_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(free_bytes)));
    if (!asked && active_clusters(kernel, cg_kernels::block_size, blocks, bytes) < 1) return false;
    cluster_launch launch(persistent_where, kernel, cg_kernels::block_size, blocks, bytes, run.stream);
    enqueue_start(run);  // after every check, which throw before any work
    launch_with(launch, slab);
    return true;
  };
  const auto tolerance = run.options.tolerance;
  const auto max_iterations = run.options.max_iterations;
  if (run.pipelined()) {
    return fit_and_launch(weighted ? cg_kernels::cluster_pipelined_kernel<T, Operator, true>
                                   : cg_kernels::cluster_pipelined_kernel<T, Operator, false>,
                          cg_kernels::pipelined_resident_vectors(weighted), pipelined_resident_from_rows,
                          cg_kernels::persistent_pipelined_kernel<T, Operator, cluster_sync_barrier>,
                          [&](auto& launch, int slab) {
                            launch.launch(1, run.state(), run.op, run.pipelined_vectors(), static_cast<int>(run.n()),
                                          slab, tolerance, max_iterations, run.history);
                          });
  }
  return fit_and_launch(weighted ? cg_kernels::cluster_resident_kernel<T, Operator, true>
                                 : cg_kernels::cluster_resident_kernel<T, Operator, false>,
                        cg_kernels::resident_vectors(weighted), resident_from_rows,
                        cg_kernels::persistent_kernel<T, Operator, cluster_sync_barrier>, [&](auto& launch, int slab) {
                          launch.launch(1, run.state(), run.op, run.vectors(), slab, tolerance, max_iterations,
                                        run.history);
                        });
}

struct persistent_cluster : ksync::detail::implements<cg_form::persistent_cluster> {
  template <class T, class Operator>
  static cg_scalars<T> run(const cg_run<T, Operator>& run) {
    if (!launch_resident(run)) {
      launch_persistent(run, cluster_sync_barrier{}, [&](auto kernel, const grid_shape& /*grid*/, auto... arguments) {
        cluster_launch launch(persistent_where, kernel, cg_kernels::block_size, cluster_blocks_of(run, kernel), 0,
                              run.stream);
        enqueue_start(run);  // after the cluster's checks, which throw before any work
        launch.launch(1, arguments...);
      });
    }
    return wait_state(run, post_state(run));
  }
};

}  // namespace ksync::cuda::detail::cg_forms
