// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::persistent_spin_barrier — the persistent kernel with ksync's acquire/release spin barrier
// (grid/barrier.cuh) instead of grid.sync(): a plain launch of a grid checked co-resident. A block
// that waits past tuning.barrier_timeout_ns gives up; the solve then throws instead of hanging.
#pragma once

#include <ksync/cuda/detail/cg/persistent.cuh>
#include <ksync/cuda/grid/barrier.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail::cg_forms {

struct persistent_spin_barrier : ksync::detail::implements<cg_form::persistent_spin_barrier> {
  template <class T, class Operator>
  static cg_scalars<T> run(const cg_run<T, Operator>& run) {
    spin_barrier_state* barrier = run.buffers->barrier.data();
    launch_persistent(run, spin_barrier{barrier, run.tuning.barrier_timeout_ns},
                      [&](auto kernel, const grid_shape& grid, auto... arguments) {
                        enqueue_start(run);  // after the grid's checks, which throw before any work
                        // Zeroed before every solve: a solve that timed out leaves its arrivals behind.
                        KSYNC_CUDA_CHECK(cudaMemsetAsync(barrier, 0, sizeof(spin_barrier_state), run.stream));
                        kernel<<<grid.blocks, grid.block_size, 0, run.stream>>>(arguments...);
                        KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::cg persistent kernel (spin barrier)");
                      });
    const cg_scalars<T> s = wait_state(run, post_state(run));
    spin_barrier_state after{};
    mailbox::wait(run.stream, mailbox::post(run.stream, barrier, sizeof(after)), &after, sizeof(after));
    if (after.timed_out != 0)
      throw cuda_error(cudaErrorLaunchTimeout,
                       "ksync::cuda::cg: " + std::to_string(after.timed_out) +
                           " blocks of persistent_spin_barrier gave up at a grid barrier after " +
                           std::to_string(run.tuning.barrier_timeout_ns) + " ns; x holds an incomplete iterate");
    return s;
  }
};

}  // namespace ksync::cuda::detail::cg_forms
