// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// jacobi_form::persistent_spin_barrier — every phase in one kernel, ksync's acquire/release spin barrier
// (spin_barrier_sync) between rounds; gives up after tuning.barrier_timeout_ns (barrier_timeouts counts).
#pragma once

#include <ksync/cuda/detail/jacobi/context.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail::jacobi_forms {

struct persistent_spin_barrier : ksync::detail::implements<jacobi_form::persistent_spin_barrier> {
  template <class T>
  static void run(const jacobi_run<T>& run) {
    launch_spinning(run, jacobi_kernels::jacobi_spin_kernel<T>, stream_barrier_states(run.stream).acquire_release);
  }
};

}  // namespace ksync::cuda::detail::jacobi_forms
