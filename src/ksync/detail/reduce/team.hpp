// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// reduce_strategy::team (portable): TeamPolicy; team t folds a contiguous chunk with TeamThreadRange into
// one team value, and the league's values are combined by Kokkos.
#pragma once

#include <ksync/detail/reduction.hpp>
#include <ksync/detail/strategy_table.hpp>

#include <algorithm>
#include <cstdint>

namespace ksync::detail::reduce_strategies {

template <reduce_op Op, class Acc, class Term, class Member>
struct TeamFold {
  Term term;
  std::int64_t n;
  std::int64_t chunk;
  KOKKOS_FUNCTION void operator()(const Member& member, Acc& acc) const {
    const std::int64_t begin = member.league_rank() * chunk;
    const std::int64_t end = begin + chunk < n ? begin + chunk : n;
    Acc team_value = combine<Op>::template identity<Acc>();
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(member, begin, end),
        [&](std::int64_t i, Acc& thread_value) { combine<Op>::into(thread_value, term(i)); },
        make_reducer<Op, Acc>(team_value));
    // No team_barrier needed: the nested parallel_reduce returns the team's value to every thread of it.
    Kokkos::single(Kokkos::PerTeam(member), [&]() { combine<Op>::into(acc, team_value); });
  }
};

struct team : implements<reduce_strategy::team> {
  template <reduce_op Op, class Acc, class ExecutionSpace, class Term, class Reducer>
  static void run(const char* label, const ExecutionSpace& exec, std::int64_t n, const Term& term,
                  const Reducer& reducer) {
    using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
    // Chunks of 8192 elements, but no more teams than the backend runs at once (its concurrency).
    const std::int64_t max_teams =
        std::max<std::int64_t>(1, exec.concurrency() / (runs_on_host<ExecutionSpace> ? 1 : 256));
    const std::int64_t teams = std::clamp<std::int64_t>((n + 8191) / 8192, 1, max_teams);
    const std::int64_t chunk = (n + teams - 1) / teams;
    Kokkos::parallel_reduce(label, Policy(exec, static_cast<int>(teams), Kokkos::AUTO),
                            TeamFold<Op, Acc, Term, typename Policy::member_type>{term, n, chunk}, reducer);
  }
};

}  // namespace ksync::detail::reduce_strategies
