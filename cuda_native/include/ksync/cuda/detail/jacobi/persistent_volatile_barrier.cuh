// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// jacobi_form::persistent_volatile_barrier — every phase in one kernel, the volatile
// sense-reversal barrier (volatile_spin_barrier_sync) between rounds; gives up as the spin barrier does.
#pragma once

#include <ksync/cuda/detail/jacobi/context.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail::jacobi_forms {

struct persistent_volatile_barrier : ksync::detail::implements<jacobi_form::persistent_volatile_barrier> {
  template <class T>
  static void run(const jacobi_run<T>& run) {
    launch_spinning(run, jacobi_kernels::jacobi_volatile_kernel<T>, stream_barrier_states(run.stream).volatile_flag);
  }
};

}  // namespace ksync::cuda::detail::jacobi_forms
