// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::fused — two reductions and the scalar step per iteration (kernels.hpp): the new direction, A p
// and p.Ap in one pass; the x/r update and r.r in the other. With the pipelined recurrence one reduction, the
// pass of pipelined_kernels.hpp, and the scalar step. Needs an operator given by its rows (the direction is
// formed on the fly where A reads its neighbours).
#pragma once

#include <ksync/detail/cg/context.hpp>
#include <ksync/detail/strategy_table.hpp>

#include <stdexcept>

namespace ksync::detail::cg::forms {

struct fused : implements<cg_form::fused> {
  // One fused iteration as three calls of `enqueue`: enqueue(label, count, functor[, result]) enqueues a
  // parallel_reduce over [0, count) (with a result) or a parallel_for, on exec or as a graph node. The
  // reductions run over lanes, each folding several indices (lane_split, ksync/detail/lanes.hpp).
  template <class ExecutionSpace, class T, class Operator, class Enqueue>
  static void iteration(const cg_run<ExecutionSpace, T, Operator>& run, Enqueue&& enqueue) {
    using memory_space = typename ExecutionSpace::memory_space;
    auto& buffers = *run.buffers;
    const lane_split split = split_into_lanes(run.exec, run.n());
    if (run.pipelined()) {  // one reduction: both sums of the pipelined pass (pipelined_kernels.hpp)
      enqueue("ksync::cg::pipelined_pass", split.lanes,
              pipelined_pass<T, memory_space, Operator>{buffers.state, run.op, run.pipelined_vectors(), split},
              sums_of_pass(buffers.state));
      enqueue("ksync::cg::advance", std::int64_t{1},
              advance<T, memory_space>{buffers.state, run.options.tolerance, run.options.max_iterations, run.history,
                                       true});
      return;
    }
    const fused_step<T, memory_space> step{.state = buffers.state, .v = run.vectors(), .split = split};
    if constexpr (runs_on_host<ExecutionSpace>) {
      // A CPU forms p_new once and reads it back from its cache faster than it forms it at every stencil
      // point: two passes (on 2 OpenMP threads at m = 2048, 15.5 ms an iteration in one pass against 13.8
      // for the CG Kokkos codes write).
      enqueue("ksync::cg::direction", split.lanes, new_direction<T, memory_space>{step});
      enqueue("ksync::cg::apply_dot", split.lanes, apply_direction<T, memory_space, Operator, false>{step, run.op},
              run.slot(&cg_scalars<T>::p_ap));
    } else {
      enqueue("ksync::cg::direction_apply", split.lanes, apply_direction<T, memory_space, Operator, true>{step, run.op},
              run.slot(&cg_scalars<T>::p_ap));
    }
    enqueue("ksync::cg::update_residual", split.lanes, update_residual<T, memory_space>{step},
            run.slot(&cg_scalars<T>::rho_next));
    enqueue("ksync::cg::advance", std::int64_t{1},
            advance<T, memory_space>{buffers.state, run.options.tolerance, run.options.max_iterations, run.history});
  }

  template <class ExecutionSpace, class T, class Operator>
  static cg_scalars<T> run(const cg_run<ExecutionSpace, T, Operator>& run) {
    if constexpr (row_operator<Operator, Kokkos::View<T*, typename ExecutionSpace::memory_space>>) {
      enqueue_start(run);
      const auto on_exec = [&](const char* label, std::int64_t count, const auto& functor, const auto&... result) {
        const index_policy<ExecutionSpace> policy(run.exec, 0, count);
        if constexpr (sizeof...(result) > 0) {
          Kokkos::parallel_reduce(label, policy, functor, result...);
        } else if (count == 1) {
          run.scalar_step(label, functor);  // advance
        } else {
          Kokkos::parallel_for(label, policy, functor);
        }
      };
      return run_batches(run, [&] {
        for (int k = 0; k < run.per_batch(); ++k)
          iteration(run, on_exec);
      });
    } else {
      throw std::logic_error("ksync::cg: fused reached with an apply operator");  // refused in solve()
    }
  }
};

}  // namespace ksync::detail::cg::forms
