// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// segment_form::team_vector_range — one nested parallel_reduce over TeamVectorRange, which spreads the
// segment over the members and their vector lanes at once.
#pragma once

#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

#include <Kokkos_Core.hpp>

namespace ksync::detail::segment_forms {

struct team_vector_range : implements<segment_form::team_vector_range> {
  template <class Reducer, class Member, class Fold, class Value>
  KOKKOS_FUNCTION static void reduce(const Member& team, int len, const Fold& fold, Value& result) {
    // Participation: every member and vector lane of the team; data: [0, len). The result reaches all.
    Kokkos::parallel_reduce(Kokkos::TeamVectorRange(team, len), fold, Reducer(result));
  }
};

}  // namespace ksync::detail::segment_forms
