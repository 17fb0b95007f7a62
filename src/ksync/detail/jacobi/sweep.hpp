// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the portable forms of ksync::jacobi share: one sweep as a functor, its policy, and the argument checks.
#pragma once

#include <ksync/compat.hpp>
#include <ksync/detail/arguments.hpp>
#include <ksync/detail/checks.hpp>
#include <ksync/detail/index_policy.hpp>
#include <ksync/stencil.hpp>

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
