// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::jacobi — `phases` Jacobi sweeps of the 1-D Laplace problem with fixed ends (ksync/stencil.hpp) over
// rank-1 Views, each sweep reading what the previous one wrote: the portable twin of ksync::cuda::jacobi.
//
//   jacobi(exec, u, scratch, phases[, form])  asynchronous: enqueued on `exec`; nothing is fenced.
//
// The sweeps alternate between u and scratch; the returned View (u after an even number of phases, scratch
// after an odd one) holds the result. Forms (ksync::jacobi_form):
//   kokkos_parallel_for (default)  one parallel_for per sweep on `exec`: the instance orders them;
//   kokkos_graph                   the sweeps as nodes of a Kokkos::Experimental::Graph, built on first use
//                                  for these Views, phases and instance on this thread and submitted on
//                                  `exec` (jacobi_graph for your own);
//   native forms                   on Kokkos::Cuda with ksync's native half: ksync::cuda::jacobi on
//                                  exec.cuda_stream() over the Views' memory (contiguous Views).
// Every form computes the same bits on every backend. Kernels are labelled "ksync::jacobi::sweep". The
// portable forms are one file each in ksync/detail/jacobi/, listed in its forms.hpp.
#pragma once

#include <ksync/compat.hpp>
#include <ksync/detail/arguments.hpp>
#include <ksync/detail/bridge/jacobi.hpp>
#include <ksync/detail/jacobi/forms.hpp>
#include <ksync/detail/jacobi/sweep.hpp>
#include <ksync/types.hpp>

#include <cstdint>
#include <string>

namespace ksync {

// Phase `phase`'s sweep (u -> scratch on even phases, scratch -> u on odd ones) as the per-index functor a
// Kokkos code writes, for a loop of your own: Kokkos::parallel_for(policy over [0, n), jacobi_sweep(u, scratch,
// phase)). The benchmarks' Kokkos baseline is that loop.
template <class View>
[[nodiscard]] auto jacobi_sweep(const View& u, const View& scratch, int phase) {
  return detail::sweep_of(u, scratch, phase);
}

// The sweeps of jacobi as one Kokkos graph, built once and submitted as often as needed.
template <class ExecutionSpace, class View>
class jacobi_graph {
 public:
  jacobi_graph(const ExecutionSpace& exec, const View& u, const View& scratch, int phases)
      : result_((detail::check_jacobi_arguments<ExecutionSpace>("ksync::jacobi_graph", u, scratch, phases),
                 phases % 2 == 0 ? u : scratch)),
        graph_(compat::create_graph(exec, [&](const auto& root) {
          Kokkos::Experimental::GraphNodeRef<ExecutionSpace> node = root;
          detail::for_each_sweep(
              exec, u, scratch, phases,
              [](std::int64_t begin, std::int64_t end) { return detail::index_policy<ExecutionSpace>(begin, end); },
              [&](const char* label, const auto& policy, const auto& sweep) {
                node = node.then_parallel_for(std::string(label), policy, sweep);
              });
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

template <class ExecutionSpace, class View>
View jacobi(const ExecutionSpace& exec, const View& u, const View& scratch, int phases,
            jacobi_form form = jacobi_form::kokkos_parallel_for) {
  constexpr const char* where = "ksync::jacobi";
  using T = typename View::non_const_value_type;
  detail::check_jacobi_arguments<ExecutionSpace>(where, u, scratch, phases);
  const auto n = static_cast<std::int64_t>(u.extent(0));
  View result = phases % 2 == 0 ? u : scratch;
  detail::check_argument(is_known(form), where, "form = ", static_cast<int>(form), " is not an jacobi_form");
  detail::check_native_reachable<"ksync::jacobi", ExecutionSpace, T>(where, "form", form);
  if (is_native(form)) {
    detail::check_argument(u.span_is_contiguous() && scratch.span_is_contiguous(), where, "form = ", to_string(form),
                           " needs contiguous Views");
    detail::native<"ksync::jacobi", T>(exec, u, scratch, phases, form);
    return result;
  }
  if (n == 0 || phases == 0) return result;
  detail::portable_jacobi_forms::dispatch(where, form, [&]<class Form>() { Form::run(exec, u, scratch, phases); });
  return result;
}

}  // namespace ksync
