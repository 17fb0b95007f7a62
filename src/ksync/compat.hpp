// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every difference between the Kokkos versions ksync supports (4.6 <= version < 6) lives here, so that the
// rest of the library is written once. When a new difference appears, add it here with the versions it
// separates, and use the compat name everywhere else.
#pragma once

#include <Kokkos_Core.hpp>
#include <Kokkos_Graph.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if KOKKOS_VERSION < 40600 || KOKKOS_VERSION >= 60000
#error "ksync supports Kokkos 4.6 <= version < 6; check KOKKOS_VERSION in KokkosCore_config.h"
#endif

namespace ksync::compat {

inline constexpr int kokkos_version = KOKKOS_VERSION;
inline constexpr int kokkos_major = KOKKOS_VERSION / 10000;

// Kokkos 4 declares View::rank as a std::integral_constant object, Kokkos 5 (mdspan-based Views) as a
// static member function; calling it works for both, naming it as a value does not.
template <class View>
inline constexpr std::size_t view_rank = static_cast<std::size_t>(View::rank());

// Kokkos::reduction_identity<T>::min() / max() for floating T: +-FLT_MAX (+-DBL_MAX) in 4.6, +-infinity in
// 5.x. ksync does not depend on it: detail::combine (detail/reduction.hpp) defines the identities (+-infinity,
// matching ksync::cuda), and an empty reduction writes that identity itself instead of Kokkos' reducer init.

// Kokkos::Experimental::partition_space(exec, w...) returns a std::vector in 4.6 and a std::array in 5.x;
// the overload taking a vector of weights returns a std::vector in both. An OpenMP instance is split by its
// threads, each part but the last getting int(weight / total * threads): 4.6 aborts ("Instance has no resource
// allocated to it") where that is 0, 5.x gives it one thread. Where exec has no more threads than `count`, each
// thread becomes an instance of its own (weights a hair above 1 but the last, so that the truncation cannot make
// 0.999... of one), and the `count` instances returned take them in turn: work given to two that share one runs
// in order.
template <class ExecutionSpace>
std::vector<ExecutionSpace> partition_space(const ExecutionSpace& exec, std::size_t count) {
#ifdef KOKKOS_ENABLE_OPENMP
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::OpenMP>) {
    const auto threads = static_cast<std::size_t>(std::max(exec.concurrency(), 1));
    if (threads <= count) {
      std::vector<double> one_each(threads, 1.0 + 1e-6);
      one_each.back() = 1.0;
      const std::vector<ExecutionSpace> own = Kokkos::Experimental::partition_space(exec, one_each);
      std::vector<ExecutionSpace> instances;
      instances.reserve(count);
      for (std::size_t k = 0; k < count; ++k)
        instances.push_back(own[k % own.size()]);
      return instances;
    }
  }
#endif
  return Kokkos::Experimental::partition_space(exec, std::vector<double>(count, 1.0));
}

// Kokkos::Experimental::create_graph(exec, closure) in 4.6; 5.x builds a graph on a device handle instead
// (create_graph(handle, closure)), recognisable by Graph::get_device_handle(). Either way the closure receives
// the root node, and the graph is submitted on the instance given to submit().
template <class ExecutionSpace, class Closure>
auto create_graph(const ExecutionSpace& exec, Closure&& closure) {
  using Graph = Kokkos::Experimental::Graph<ExecutionSpace>;
  if constexpr (requires(const Graph& graph) { graph.get_device_handle(); }) {
    using Handle = std::remove_cvref_t<decltype(std::declval<const Graph&>().get_device_handle())>;
    return Kokkos::Experimental::create_graph(Handle::from(exec), std::forward<Closure>(closure));
  } else {
    return Kokkos::Experimental::create_graph(exec, std::forward<Closure>(closure));
  }
}

// Kokkos::parallel_reduce with two results or more (the host overloads in impl/Kokkos_Combined_Reducer.hpp) is
// noexcept in 4.6, no longer in 4.7: an exception thrown inside it (by a Kokkos Tools callback, a failed allocation
// or CUDA call) ends the process under 4.6 instead of reaching the caller, and a collective solve can then neither
// report it nor stop the other ranks with it. parallel_reduce_sums(label, policy, f, sums) sums the N terms that
// f(i, T&...) adds to into `sums` through a reduction of one value (the N sums together), on every version; it
// blocks as a reduction into a host value does (the policy's instance is fenced). The policy takes no work tag.
template <class T, std::size_t N, class Terms>
struct summed_terms {
  using value_type = Kokkos::Array<T, N>;
  Terms terms;

  template <class Index>
  KOKKOS_FUNCTION void operator()(Index i, value_type& sums) const {
    add(i, sums, std::make_index_sequence<N>{});
  }
  KOKKOS_FUNCTION void init(value_type& sums) const {
    for (std::size_t k = 0; k < N; ++k)
      sums[k] = T(0);
  }
  KOKKOS_FUNCTION void join(value_type& into, const value_type& from) const {
    for (std::size_t k = 0; k < N; ++k)
      into[k] += from[k];
  }

 private:
  template <class Index, std::size_t... K>
  KOKKOS_FUNCTION void add(Index i, value_type& sums, std::index_sequence<K...> /*slots*/) const {
    terms(i, sums[K]...);
  }
};

template <class Policy, class Terms, class T, std::size_t N>
void parallel_reduce_sums(const std::string& label, const Policy& policy, const Terms& terms, std::array<T, N>& sums) {
  Kokkos::Array<T, N> total{};
  Kokkos::parallel_reduce(label, policy, summed_terms<T, N, Terms>{terms}, total);
  for (std::size_t k = 0; k < N; ++k)
    sums[k] = total[k];
}

}  // namespace ksync::compat
