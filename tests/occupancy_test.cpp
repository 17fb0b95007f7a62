// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::team_size_limits: Kokkos' own answer to the occupancy question, on whatever backend Kokkos has.
#include <ksync/occupancy.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;

struct TeamWork {
  Kokkos::View<float*> data;
  KOKKOS_FUNCTION void operator()(const Kokkos::TeamPolicy<Exec>::member_type& member) const {
    // Participation: every thread of the team. Data: none; the functor only needs a barrier to be a team one.
    member.team_barrier();
    if (member.team_rank() == 0) data(member.league_rank()) = 1.0f;
  }
};

TEST(TeamSizeLimits, RecommendedFitsUnderTheMaximumAndScratchCanOnlyLowerIt) {
  const Exec exec;
  const TeamWork functor{Kokkos::View<float*>("data", 1)};
  const auto plain = ksync::team_size_limits(exec, functor);
  EXPECT_GE(plain.recommended, 1);
  EXPECT_LE(plain.recommended, plain.max);
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Exec::memory_space>::accessible) {
    EXPECT_LE(plain.max, exec.concurrency());
  } else {
    EXPECT_LE(plain.max, 1024);
  }
  const auto with_scratch = ksync::team_size_limits(exec, functor, std::size_t{16} * 1024);
  EXPECT_LE(with_scratch.max, plain.max);
  std::printf("%s: team_size_max %d, team_size_recommended %d; with 16 KiB scratch per team: %d, %d\n", Exec::name(),
              plain.max, plain.recommended, with_scratch.max, with_scratch.recommended);
}

}  // namespace
