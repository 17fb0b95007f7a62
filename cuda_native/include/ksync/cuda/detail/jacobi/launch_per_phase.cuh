// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// jacobi_form::launch_per_phase — one kernel launch per sweep; the stream orders them.
#pragma once

#include <ksync/cuda/detail/jacobi/context.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail::jacobi_forms {

struct launch_per_phase : ksync::detail::implements<jacobi_form::launch_per_phase> {
  template <class T>
  static void run(const jacobi_run<T>& run) {
    enqueue_phases(run.stream, run.u, run.scratch, run.n, run.phases, run.tuning.block_size);
  }
};

}  // namespace ksync::cuda::detail::jacobi_forms
