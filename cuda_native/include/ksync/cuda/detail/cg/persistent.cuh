// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the three persistent forms share: the whole solve is one kernel (kernels.cuh, persistent_kernel) on a
// grid every block of which is resident at once, two grid barriers per iteration (one with the pipelined
// recurrence: pipelined_kernels.cuh), and every block forming the scalars itself from the partial sums (no
// broadcast). The forms differ only in the barrier:
// persistent_grid_sync.cuh, persistent_spin_barrier.cuh and persistent_cluster.cuh (whose grid is one cluster).
#pragma once

#include <ksync/cuda/detail/cg/context.cuh>
#include <ksync/cuda/grid/co_resident.cuh>

#include <algorithm>

namespace ksync::cuda::detail::cg_forms {

inline constexpr const char* persistent_where = "ksync::cuda::cg";

// A co-resident grid of the persistent kernel, no larger than elements_per_thread asks for (each barrier
// costs more with more blocks) nor than the partial slots hold (slots_per_block each). Throws
// std::invalid_argument when tuning.blocks_per_multiprocessor blocks cannot be resident.
template <class T, class Operator, class Kernel>
grid_shape persistent_grid(const cg_run<T, Operator>& run, Kernel kernel, unsigned int slots_per_block) {
  grid_shape grid = co_resident_grid(persistent_where, kernel, cg_kernels::block_size, 0,
                                     run.tuning.blocks_per_multiprocessor, run.buffers->device);
  grid.blocks = std::min({grid.blocks, run.blocks, run.buffers->partial_slots / slots_per_block});
  return grid;
}

// How many chunks of rows (one step kernel's block each) the busiest block of `grid` walks an iteration.
template <class T, class Operator>
unsigned int passes(const cg_run<T, Operator>& run, const grid_shape& grid) {
  return (run.blocks + grid.blocks - 1) / grid.blocks;
}

// The classic kernel's held build (kernels.cuh) runs where the rows make at least this many passes of its
// grid, or where tuning asks for more blocks than the roomy build fits. There the solve streams its vectors
// and the loads each multiprocessor keeps in flight decide; below, the barriers do, and the held build only
// adds spills and arrivals. Measured with the held build at every size against the roomy one (H200, double,
// docs/results/2026-12-05-h200-e2cbbe3 against docs/results/2026-12-04-h200-f818fbe): the stencil with
// grid.sync 9-12 % faster at m = 2048 and 4096 (6 and 6 passes held, 11 roomy); the stencil and CSR forms
// 8-35 % slower at m = 64-256 and 1024 (1 and 2 passes held); CSR within -7 to +4 % at 4096; 3-D CSR 8-11 %
// slower at m = 256 (6 passes: a loss this rule keeps, as the rows alone do not tell it from the 2-D gain).
inline constexpr unsigned int held_from_passes = 3;

// The persistent kernel of the run's recurrence with `barrier`, and its grid: launch(kernel, grid, arguments...)
// launches it (a cooperative launch or a plain one). The classic kernel has two builds (above); the pipelined
// kernel one, roomy.
template <class T, class Operator, class Barrier, class Launch>
void launch_persistent(const cg_run<T, Operator>& run, const Barrier& barrier, Launch&& launch) {
  T* const partials = run.buffers->partials.data();
  if (run.pipelined()) {  // four slots a block: two sums, two iteration parities
    const auto kernel = cg_kernels::persistent_pipelined_kernel<T, Operator, Barrier>;
    launch(kernel, persistent_grid(run, kernel, 4), barrier, run.state(), run.op, run.pipelined_vectors(),
           run.buffers->n, partials, run.options.tolerance, run.options.max_iterations, run.history);
  } else {  // two slots a block: one per phase
    const auto roomy = cg_kernels::persistent_kernel<T, Operator, Barrier>;
    const auto held = cg_kernels::persistent_kernel_held<T, Operator, Barrier>;
    const auto start = [&](auto kernel, const grid_shape& grid) {
      launch(kernel, grid, barrier, run.state(), run.op, run.vectors(), partials, run.options.tolerance,
             run.options.max_iterations, run.history);
    };
    if (run.tuning.blocks_per_multiprocessor > resident_blocks_of(roomy, cg_kernels::block_size, 0)) {
      start(held, persistent_grid(run, held, 2));  // only the held build can have that many resident
      return;
    }
    if (run.tuning.blocks_per_multiprocessor == 0) {
      const grid_shape held_grid = persistent_grid(run, held, 2);
      if (passes(run, held_grid) >= held_from_passes) {
        start(held, held_grid);
        return;
      }
    }
    start(roomy, persistent_grid(run, roomy, 2));
  }
}

}  // namespace ksync::cuda::detail::cg_forms
