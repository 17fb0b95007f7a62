// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// segment_form::team_reduce — each member folds a strided share of the segment, then member.team_reduce
// combines the members' partials.
#pragma once

#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

#include <Kokkos_Core.hpp>

namespace ksync::detail::segment_forms {

struct team_reduce : implements<segment_form::team_reduce> {
  template <class Reducer, class Member, class Fold, class Value>
  KOKKOS_FUNCTION static void reduce(const Member& team, int len, const Fold& fold, Value& result) {
    Reducer(result).init(result);
    for (int i = team.team_rank(); i < len; i += team.team_size())
      fold(i, result);
    // team_reduce is a team-wide collective: participation = every member (those with no element hold the
    // identity); data = each member's partial. It publishes the combined value to every member.
    team.team_reduce(Reducer(result));
  }
};

}  // namespace ksync::detail::segment_forms
