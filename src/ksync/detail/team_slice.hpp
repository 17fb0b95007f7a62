// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the block-scope patterns' team functors share: the team's member type, and the slice of the data a
// team owns when [0, n) is cut into pieces of `size` elements, one per league rank (segments, tiles). The
// slice's length is the data bound of every team collective below it; the whole team is its participation
// bound, whatever the length.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ksync::detail {

template <class ExecutionSpace>
using team_member = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;

struct team_slice {
  std::int64_t begin;  // the slice's first element
  int len;             // its length: `size`, or fewer for the last one
};

// The slice of league rank r of `elements` elements cut into pieces of `size`.
template <class Member>
KOKKOS_FUNCTION team_slice slice_of(const Member& team, std::int64_t elements, int size) {
  const std::int64_t begin = static_cast<std::int64_t>(team.league_rank()) * size;
  return {.begin = begin, .len = static_cast<int>(elements - begin < size ? elements - begin : size)};
}

}  // namespace ksync::detail
