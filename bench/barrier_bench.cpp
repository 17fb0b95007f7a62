// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The barrier-cost table, portable rows: a Kokkos team_barrier (one team per multiprocessor on GPUs, one
// per thread on host backends, `rounds` barriers per kernel), a Kokkos kernel launch followed by a fence of
// its instance, and one node of a Kokkos::Experimental::Graph of empty kernels. The native rows are in
// bench/cuda_native/barrier_bench.cu.
#include "portable.hpp"

#include <ksync/compat.hpp>
#include <ksync/occupancy.hpp>

#include <cstdint>
#include <string>

namespace {

using ksync::bench::Exec;
using ksync::bench::time_on_instance;
using TeamPolicy = Kokkos::TeamPolicy<Exec>;

struct TeamBarrierRounds {
  int rounds;
  Kokkos::View<int*> sink;
  KOKKOS_FUNCTION void operator()(const TeamPolicy::member_type& member) const {
    int value = member.team_rank();
    for (int round = 0; round < rounds; ++round) {
      value += round;
      // Participation: every thread of the team (uniform loop). Data: none; the barrier itself is timed.
      member.team_barrier();
    }
    if (value == -1) sink(0) = value;
  }
};

struct Nothing {
  KOKKOS_FUNCTION void operator()(std::int64_t /*index*/) const {}
};

void time_team_barrier(benchmark::State& state, int team_size, int rounds) {
  const Exec exec;
  const Kokkos::View<int*> sink("ksync::bench::sink", 1);
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Exec::memory_space>::accessible;
  // One team per multiprocessor on GPUs (concurrency / 2048 resident threads each), one per thread on hosts.
  const int teams = host ? exec.concurrency() : std::max(1, exec.concurrency() / 2048);
  const int size = host ? 1 : team_size;
  time_on_instance(
      state, exec, 0,
      [&] {
        Kokkos::parallel_for("ksync::bench::team_barrier", TeamPolicy(exec, teams, size),
                             TeamBarrierRounds{.rounds = rounds, .sink = sink});
      },
      ksync::bench::timing::latency);
  ksync::bench::record_barriers(state, rounds);
  state.counters["teams"] = teams;
  state.counters["team_size"] = size;
  // Kokkos' view of the occupancy question for this functor (ksync::team_size_limits).
  const auto limits = ksync::team_size_limits(exec, TeamBarrierRounds{.rounds = rounds, .sink = sink});
  state.counters["team_size_max"] = limits.max;
  state.counters["team_size_recommended"] = limits.recommended;
}

// A Kokkos launch then a fence of its instance: what a Kokkos code pays to separate two dependent phases
// when it must see the first one finished on the host.
void time_launch_and_fence(benchmark::State& state, int launches) {
  const Exec exec;
  time_on_instance(
      state, exec, 0,
      [&] {
        for (int launch = 0; launch < launches; ++launch) {
          Kokkos::parallel_for("ksync::bench::empty",
                               Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, 1), Nothing{});
          exec.fence("ksync::bench::launch_and_fence");
        }
      },
      ksync::bench::timing::latency);
  ksync::bench::record_barriers(state, launches);
}

// One node of a graph of `nodes` empty kernels, submitted on the instance.
void time_graph_node(benchmark::State& state, int nodes) {
  const Exec exec;
  auto graph = ksync::compat::create_graph(exec, [&](const auto& root) {
    Kokkos::Experimental::GraphNodeRef<Exec> node = root;
    for (int k = 0; k < nodes; ++k)
      node = node.then_parallel_for("ksync::bench::empty",
                                    Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, 1), Nothing{});
  });
  graph.instantiate();
  time_on_instance(state, exec, 0, [&] { graph.submit(exec); }, ksync::bench::timing::latency);
  ksync::bench::record_barriers(state, nodes);
}

}  // namespace

void ksync::bench::register_barrier_benchmarks(bool smoke) {
  const int rounds = smoke ? 100 : 100'000;
  const int launches = smoke ? 10 : 1'000;
  for (const int team_size : {64, 256, 1024}) {
    benchmark::RegisterBenchmark("portable/barrier/team_barrier/" + std::to_string(team_size), time_team_barrier,
                                 team_size, rounds)
        ->UseManualTime();
  }
  benchmark::RegisterBenchmark("portable/barrier/kokkos_launch_and_fence", time_launch_and_fence, launches)
      ->UseManualTime();
  benchmark::RegisterBenchmark("portable/barrier/kokkos_graph_node", time_graph_node, launches)->UseManualTime();
}
