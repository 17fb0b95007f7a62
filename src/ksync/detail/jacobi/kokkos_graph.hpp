// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// jacobi_form::kokkos_graph — the sweeps as nodes of a Kokkos::Experimental::Graph (ksync::jacobi_graph,
// ksync/jacobi.hpp), built on first use for these Views, phases and instance and submitted on `exec`.
#pragma once

#include <ksync/compat.hpp>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

#include <cstdint>
#include <memory>
#include <mutex>

namespace ksync {

template <class ExecutionSpace, class View>
class jacobi_graph;  // ksync/jacobi.hpp, which includes this file before defining it

namespace detail {

// Submits the kokkos_graph form's graph for the last (Views, phases, instance) used in this process,
// building it first when these differ: building a graph costs far more than submitting it. The Views are
// compared as Kokkos compares Views (data pointer, span, extents: a strided View over the same memory is
// another View), and the slot holds them, so no address is reused while it does. One guarded slot per
// (ExecutionSpace, View) type, emptied when Kokkos finalizes (its Views must not outlive Kokkos).
template <class ExecutionSpace, class View>
View submit_cached_jacobi_graph(const ExecutionSpace& exec, const View& u, const View& scratch, int phases) {
  struct entry {
    View u;
    View scratch;
    int phases;
    std::uint32_t instance;
    jacobi_graph<ExecutionSpace, View> graph;
  };
  static std::mutex guard;
  static std::unique_ptr<entry> slot;
  static const bool hook_pushed = [] {
    Kokkos::push_finalize_hook([] {
      const std::lock_guard<std::mutex> lock(guard);
      slot.reset();
    });
    return true;
  }();
  (void)hook_pushed;
  const std::lock_guard<std::mutex> lock(guard);
  const auto instance = static_cast<std::uint32_t>(exec.impl_instance_id());
  if (!slot || !(slot->u == u) || !(slot->scratch == scratch) || slot->phases != phases || slot->instance != instance) {
    slot.reset();  // the old graph and its Views go first
    slot = std::make_unique<entry>(
        entry{u, scratch, phases, instance, jacobi_graph<ExecutionSpace, View>(exec, u, scratch, phases)});
  }
  return slot->graph.submit(exec);
}

namespace jacobi_forms {

struct kokkos_graph : implements<jacobi_form::kokkos_graph> {
  template <class ExecutionSpace, class View>
  static void run(const ExecutionSpace& exec, const View& u, const View& scratch, int phases) {
    (void)submit_cached_jacobi_graph(exec, u, scratch, phases);
  }
};

}  // namespace jacobi_forms
}  // namespace detail
}  // namespace ksync
