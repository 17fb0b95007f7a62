// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::jacobi — `phases` Jacobi sweeps of the 1-D Laplace problem with fixed ends (ksync/stencil.hpp) over
// rank-1 Views, each sweep reading what the previous one wrote: the portable twin of ksync::cuda::jacobi.
//
//   jacobi(exec, u, scratch, phases[, form])  asynchronous: enqueued on `exec`; nothing is fenced.
//
// The sweeps alternate between u and scratch; the returned View (u after an even number of phases, scratch
// after an odd one) holds the result. Forms (ksync::iteration_form):
//   kokkos_parallel_for (default)  one parallel_for per sweep on `exec`: the instance orders them;
//   kokkos_graph                   the sweeps as nodes of a Kokkos::Experimental::Graph, built on first use
//                                  for these Views, phases and instance on this thread and submitted on
//                                  `exec` (jacobi_graph for your own);
//   native forms                   on Kokkos::Cuda with ksync's native half: ksync::cuda::jacobi on
//                                  exec.cuda_stream() over the Views' memory (contiguous Views).
// Every form computes the same bits on every backend. Kernels are labelled "ksync::jacobi::sweep".
#pragma once

#include <ksync/compat.hpp>
#include <ksync/detail/arguments.hpp>
#include <ksync/detail/checks.hpp>
#include <ksync/detail/native_bridge.hpp>
#include <ksync/stencil.hpp>
#include <ksync/types.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>

namespace ksync {

namespace detail {

template <class View>
struct JacobiSweep {
  typename View::const_type current;
  View next;
  std::int64_t n;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    next(i) = (i == 0 || i == n - 1) ? current(i) : jacobi_update(current(i - 1), current(i + 1));
  }
};

// Phase p's sweep: u -> scratch on even phases, scratch -> u on odd ones.
template <class View>
JacobiSweep<View> sweep_of(const View& u, const View& scratch, int phase) {
  const bool even = phase % 2 == 0;
  return {.current = even ? u : scratch, .next = even ? scratch : u, .n = static_cast<std::int64_t>(u.extent(0))};
}

template <class ExecutionSpace>
using SweepPolicy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;

template <class ExecutionSpace, class View>
void check_jacobi_arguments(const char* where, const View& u, const View& scratch, int phases) {
  static_assert(is_usable_view_v<ExecutionSpace, View, 1>,
                "ksync::jacobi: u and scratch must be rank-1 Views accessible from the execution space");
  static_assert(std::is_floating_point_v<typename View::value_type>,
                "ksync::jacobi: the Views must hold non-const float or double");
  check_argument(phases >= 0, where, "phases = ", phases, " is negative");
  check_argument(u.extent(0) == scratch.extent(0), where, "u.extent(0) = ", u.extent(0),
                 " but scratch.extent(0) = ", scratch.extent(0));
  check_argument(u.extent(0) == 0 || u.data() != scratch.data(), where,
                 "u and scratch are the same View; the sweeps need two");
}

}  // namespace detail

// The sweeps of jacobi as one Kokkos graph, built once and submitted as often as needed.
template <class ExecutionSpace, class View>
class jacobi_graph {
 public:
  jacobi_graph(const ExecutionSpace& exec, const View& u, const View& scratch, int phases)
      : result_((detail::check_jacobi_arguments<ExecutionSpace>("ksync::jacobi_graph", u, scratch, phases),
                 phases % 2 == 0 ? u : scratch)),
        graph_(compat::create_graph(exec, [&](const auto& root) {
          Kokkos::Experimental::GraphNodeRef<ExecutionSpace> node = root;
          const auto n = static_cast<std::int64_t>(u.extent(0));
          for (int phase = 0; phase < phases; ++phase) {
            node = node.then_parallel_for("ksync::jacobi::sweep", detail::SweepPolicy<ExecutionSpace>(0, n),
                                          detail::sweep_of(u, scratch, phase));
          }
        })) {
    graph_.instantiate();
  }
  // Enqueues every sweep on `exec`; returns the View the result lands in.
  View submit(const ExecutionSpace& exec) const {
    graph_.submit(exec);
    return result_;
  }

 private:
  View result_;
  Kokkos::Experimental::Graph<ExecutionSpace> graph_;
};

namespace detail {

// Submits the kokkos_graph form's graph for the last (Views, phases, instance) used in this process,
// building it first when these differ: building a graph costs far more than submitting it. One guarded slot per
// (ExecutionSpace, View) type, emptied when Kokkos finalizes (its Views must not outlive Kokkos).
template <class ExecutionSpace, class View>
View submit_cached_jacobi_graph(const ExecutionSpace& exec, const View& u, const View& scratch, int phases) {
  struct entry {
    const void* u;
    const void* scratch;
    std::size_t n;
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
  if (!slot || slot->u != u.data() || slot->scratch != scratch.data() || slot->n != u.extent(0) ||
      slot->phases != phases || slot->instance != instance) {
    slot.reset();  // the old graph and its Views go first
    slot = std::make_unique<entry>(entry{u.data(), scratch.data(), u.extent(0), phases, instance,
                                         jacobi_graph<ExecutionSpace, View>(exec, u, scratch, phases)});
  }
  return slot->graph.submit(exec);
}

}  // namespace detail

template <class ExecutionSpace, class View>
View jacobi(const ExecutionSpace& exec, const View& u, const View& scratch, int phases,
            iteration_form form = iteration_form::kokkos_parallel_for) {
  constexpr const char* where = "ksync::jacobi";
  detail::check_jacobi_arguments<ExecutionSpace>(where, u, scratch, phases);
  const auto n = static_cast<std::int64_t>(u.extent(0));
  View result = phases % 2 == 0 ? u : scratch;
  if (is_native(form)) {
    detail::check_argument(detail::has_native_bridge<ExecutionSpace>, where, "form = ", to_string(form),
                           " runs ksync::cuda's kernels: it needs exec to be Kokkos::Cuda and ksync built with its "
                           "native half, not ",
                           ExecutionSpace::name());
#if KSYNC_NATIVE_BRIDGE
    if constexpr (detail::has_native_bridge<ExecutionSpace>) {
      detail::check_argument(u.span_is_contiguous() && scratch.span_is_contiguous(), where, "form = ", to_string(form),
                             " needs contiguous Views");
      (void)ksync::cuda::jacobi(exec.cuda_stream(), u.data(), scratch.data(), n, phases, form);
    }
#endif
    return result;
  }
  if (n == 0 || phases == 0) return result;
  if (form == iteration_form::kokkos_graph) return detail::submit_cached_jacobi_graph(exec, u, scratch, phases);
  for (int phase = 0; phase < phases; ++phase) {
    Kokkos::parallel_for("ksync::jacobi::sweep", detail::SweepPolicy<ExecutionSpace>(exec, 0, n),
                         detail::sweep_of(u, scratch, phase));
  }
  return result;
}

}  // namespace ksync
