// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::team_size_limits — the Kokkos view of the occupancy question that ksync::cuda::model_occupancy
// answers for hand-written kernels (cuda_native/include/ksync/cuda/device/occupancy.hpp): how large a team
// Kokkos lets `functor` have (team_size_max) and what it recommends (team_size_recommended), for a
// TeamPolicy on `exec` with `scratch_bytes_per_team` of level-0 scratch. On the CUDA backend Kokkos derives
// both from the same four limits (registers, shared memory, warps, block slots) for the kernel it
// generates; on host backends a team is at most the threads of the instance. Blocking: none (no kernel).
#pragma once

#include <ksync/compat.hpp>
#include <ksync/detail/arguments.hpp>

#include <cstddef>

namespace ksync {

struct team_sizes {
  int max = 0;          // TeamPolicy::team_size_max(functor, ParallelForTag)
  int recommended = 0;  // TeamPolicy::team_size_recommended(functor, ParallelForTag)
};

template <class ExecutionSpace, class Functor>
team_sizes team_size_limits(const ExecutionSpace& exec, const Functor& functor,
                            std::size_t scratch_bytes_per_team = 0) {
  Kokkos::TeamPolicy<ExecutionSpace> policy(exec, 1, Kokkos::AUTO);
  policy.set_scratch_size(0, Kokkos::PerTeam(scratch_bytes_per_team));
  const team_sizes sizes{.max = policy.team_size_max(functor, Kokkos::ParallelForTag{}),
                         .recommended = policy.team_size_recommended(functor, Kokkos::ParallelForTag{})};
  detail::check_argument(sizes.max > 0, "ksync::team_size_limits", "scratch_bytes_per_team = ", scratch_bytes_per_team,
                         ": Kokkos allows no team of this functor on ", ExecutionSpace::name());
  return sizes;
}

}  // namespace ksync
