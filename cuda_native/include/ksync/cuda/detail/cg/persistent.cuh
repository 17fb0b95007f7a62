// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the two persistent forms share: the whole solve is one kernel (kernels.cuh, persistent_kernel) on a
// grid every block of which is resident at once, two grid barriers per iteration (one with the pipelined
// recurrence: pipelined_kernels.cuh), and every block forming the scalars itself from the partial sums (no
// broadcast). The forms differ only in the barrier:
// persistent_grid_sync.cuh and persistent_spin_barrier.cuh.
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

// The persistent kernel of the run's recurrence with `barrier`, and its grid: launch(kernel, grid, arguments...)
// launches it (a cooperative launch or a plain one).
template <class T, class Operator, class Barrier, class Launch>
void launch_persistent(const cg_run<T, Operator>& run, const Barrier& barrier, Launch&& launch) {
  T* const partials = run.buffers->partials.data();
  if (run.pipelined()) {  // four slots a block: two sums, two iteration parities
    const auto kernel = cg_kernels::persistent_pipelined_kernel<T, Operator, Barrier>;
    launch(kernel, persistent_grid(run, kernel, 4), barrier, run.state(), run.op, run.pipelined_vectors(),
           run.buffers->n, partials, run.options.tolerance, run.options.max_iterations, run.history);
  } else {  // two slots a block: one per phase
    const auto kernel = cg_kernels::persistent_kernel<T, Operator, Barrier>;
    launch(kernel, persistent_grid(run, kernel, 2), barrier, run.state(), run.op, run.vectors(), partials,
           run.options.tolerance, run.options.max_iterations, run.history);
  }
}

}  // namespace ksync::cuda::detail::cg_forms
