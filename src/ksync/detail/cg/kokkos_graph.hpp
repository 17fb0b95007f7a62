// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// cg_form::kokkos_graph — check_every fused iterations as the nodes of one Kokkos::Experimental::Graph,
// built once per solver, operator, x, options and instance (rebuilt when one changes; the operator is
// compared as ksync/detail/captured_value.hpp says) and submitted once per batch. The host looks between
// batches, as the fused form does.
#pragma once

#include <ksync/detail/captured_value.hpp>
#include <ksync/detail/cg/context.hpp>
#include <ksync/detail/cg/fused.hpp>
#include <ksync/detail/strategy_table.hpp>

#include <stdexcept>
#include <string>

namespace ksync::detail::cg::forms {

struct kokkos_graph : implements<cg_form::kokkos_graph> {
  template <class ExecutionSpace, class T, class Operator>
  static void build(const cg_run<ExecutionSpace, T, Operator>& run) {
    auto& buffers = *run.buffers;
    const cg_graph_key key{.x = run.x.data(),
                           .history = run.history,
                           .tolerance = run.options.tolerance,
                           .max_iterations = run.options.max_iterations,
                           .iterations = run.per_batch(),
                           .shape = static_cast<std::uint32_t>(run.exec.impl_instance_id()),
                           .inverse_diagonal = run.inverse_diagonal,
                           .recurrence = run.options.recurrence};
    if (buffers.graph && buffers.built == key && buffers.built_operator.holds(run.op)) return;
    buffers.graph.reset();  // the old graph goes first
    buffers.built_operator = {};
    (void)buffers.graph.emplace(compat::create_graph(run.exec, [&](const auto& root) {
      Kokkos::Experimental::GraphNodeRef<ExecutionSpace> node = root;
      const auto as_node = [&](const char* label, std::int64_t count, const auto& functor, const auto&... result) {
        // A std::string label: what both Kokkos 4.6 and 5.x take for a node's label.
        const index_policy<ExecutionSpace> policy(0, count);
        if constexpr (sizeof...(result) > 0) {
          node = node.then_parallel_reduce(std::string(label), policy, functor, result...);
        } else {
          node = node.then_parallel_for(std::string(label), policy, functor);
        }
      };
      for (int k = 0; k < run.per_batch(); ++k)
        fused::iteration(run, as_node);
    }));
    buffers.graph->instantiate();
    buffers.built = key;
    buffers.built_operator = captured_value::of(run.op);
  }

  template <class ExecutionSpace, class T, class Operator>
  static cg_scalars<T> run(const cg_run<ExecutionSpace, T, Operator>& run) {
    if constexpr (row_operator<Operator, Kokkos::View<T*, typename ExecutionSpace::memory_space>>) {
      build(run);
      enqueue_start(run);
      return run_batches(run, [&] { run.buffers->graph->submit(run.exec); });
    } else {
      throw std::logic_error("ksync::cg: kokkos_graph reached with an apply operator");  // refused in solve()
    }
  }
};

}  // namespace ksync::detail::cg::forms
