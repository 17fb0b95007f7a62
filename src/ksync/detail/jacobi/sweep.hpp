// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the portable forms of ksync::jacobi share: one sweep as a functor, its policy, and the argument checks.
#pragma once

#include <ksync/compat.hpp>
#include <ksync/detail/arguments.hpp>
#include <ksync/detail/checks.hpp>
#include <ksync/detail/index_policy.hpp>
#include <ksync/detail/reduction.hpp>
#include <ksync/stencil.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace ksync::detail {

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

// Host backends, contiguous Views: phase p's sweep over one contiguous chunk per work item (split_for_host),
// the end points outside the loop. The data pointers are read once a chunk and the interior loop
// vectorizes; Kokkos' loop over JacobiSweep reread the functor's Views after every store (the stores may
// alias them) and tested the end points at every index: 3-4x this loop's time on OpenMP (docs/synchronization.md).
template <class T>
struct JacobiSweepChunks {
  const T* current;
  T* next;
  std::int64_t n;
  std::int64_t chunk;
  KOKKOS_FUNCTION void operator()(std::int64_t lane) const {
    const std::int64_t begin = lane * chunk;
    const std::int64_t end = begin + chunk < n ? begin + chunk : n;
    const T* const in = current;
    T* const out = next;
    if (begin == 0 && end > 0) out[0] = in[0];
    const std::int64_t first = begin > 1 ? begin : 1;
    const std::int64_t last = end < n - 1 ? end : n - 1;
    for (std::int64_t i = first; i < last; ++i)
      out[i] = jacobi_update(in[i - 1], in[i + 1]);
    if (end == n && n > 1) out[n - 1] = in[n - 1];
  }
};

// Calls launch(label, policy, functor) for every phase's sweep, in order: on host backends over contiguous
// Views, JacobiSweepChunks over split_for_host's lanes; otherwise JacobiSweep, one index per work item.
// `policy(begin, end)` makes the policy (with or without the instance: a graph node takes none).
template <class ExecutionSpace, class View, class Policy, class Launch>
void for_each_sweep(const ExecutionSpace& exec, const View& u, const View& scratch, int phases, const Policy& policy,
                    const Launch& launch) {
  const auto n = static_cast<std::int64_t>(u.extent(0));
  if constexpr (runs_on_host<ExecutionSpace>) {
    if (u.span_is_contiguous() && scratch.span_is_contiguous()) {
      const auto [lanes, chunk] = split_for_host(exec, n);
      for (int phase = 0; phase < phases; ++phase) {
        const auto sweep = sweep_of(u, scratch, phase);
        launch(
            "ksync::jacobi::sweep", policy(0, lanes),
            JacobiSweepChunks<typename View::non_const_value_type>{sweep.current.data(), sweep.next.data(), n, chunk});
      }
      return;
    }
  }
  for (int phase = 0; phase < phases; ++phase)
    launch("ksync::jacobi::sweep", policy(0, n), sweep_of(u, scratch, phase));
}

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

}  // namespace ksync::detail
