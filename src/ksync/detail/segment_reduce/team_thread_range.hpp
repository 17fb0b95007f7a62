// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// segment_form::team_thread_range — a nested parallel_reduce over TeamThreadRange: the members share the
// segment, Kokkos combines their partials.
#pragma once

#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

#include <Kokkos_Core.hpp>

namespace ksync::detail::segment_forms {

struct team_thread_range : implements<segment_form::team_thread_range> {
  template <class Reducer, class Member, class Fold, class Value>
  KOKKOS_FUNCTION static void reduce(const Member& team, int len, const Fold& fold, Value& result) {
    // A nested reduction is a team collective: every member enters (participation), the range stops at len
    // (data), and the result reaches every member.
    Kokkos::parallel_reduce(Kokkos::TeamThreadRange(team, len), fold, Reducer(result));
  }
};

}  // namespace ksync::detail::segment_forms
