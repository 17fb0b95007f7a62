// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Portable reduction: ksync::reduce on Kokkos' default execution space, beside a Kokkos device copy (the
// bandwidth ceiling measured in the same run) and, when built with it, KokkosBlas::sum.
#include "common.hpp"

#include <ksync/config.hpp>
#include <ksync/reduce.hpp>
#if KSYNC_HAS_KOKKOS_KERNELS
#include <KokkosBlas1_sum.hpp>
#endif

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;

// x[i] = i % 8: see ksync::bench::pattern_sum.
struct FillPattern {
  Kokkos::View<float*> data;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { data(i) = static_cast<float>(i % 8); }
};

Kokkos::View<float*> make_input(const Exec& exec, std::int64_t n) {
  const Kokkos::View<float*> data(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::bench::data"), n);
  Kokkos::parallel_for("ksync::bench::fill", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                       FillPattern{data});
  exec.fence("ksync::bench::fill");
  return data;
}

// Times `run` per iteration as seen by `exec` (the work plus a fence of that instance only), after one
// untimed call.
template <class Run>
void time_on_instance(benchmark::State& state, const Exec& exec, std::int64_t bytes_per_call, Run&& run) {
  run();  // warm-up, untimed: first touch of fresh pages, kernel loading, Kokkos' reduction scratch
  exec.fence("ksync::bench::warm_up");
  for (auto _ : state) {
    Kokkos::Timer timer;
    run();
    exec.fence("ksync::bench::timed");
    state.SetIterationTime(timer.seconds());
  }
  state.SetBytesProcessed(state.iterations() * bytes_per_call);
}

// One sum into a device View per iteration, by `sum(exec, data, result)`; checks the last result.
template <class Sum>
void time_sum(benchmark::State& state, Sum&& sum) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const auto data = make_input(exec, n);
  const Kokkos::View<float> result("ksync::bench::result");
  time_on_instance(state, exec, n * static_cast<std::int64_t>(sizeof(float)), [&] { sum(exec, data, result); });
  float last = 0;
  Kokkos::deep_copy(last, result);
  ksync::bench::check_pattern_sum(state, last, n);
  state.counters["n"] = static_cast<double>(n);
}

void portable_reduce(benchmark::State& state) {
  time_sum(state, [](const auto& exec, const auto& data, const auto& result) { ksync::reduce(exec, data, result); });
}

void portable_device_copy(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const auto source = make_input(exec, n);
  const Kokkos::View<float*> target(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::bench::copy"), n);
  time_on_instance(state, exec, 2 * n * static_cast<std::int64_t>(sizeof(float)),
                   [&] { Kokkos::deep_copy(exec, target, source); });
  state.counters["n"] = static_cast<double>(n);
}

#if KSYNC_HAS_KOKKOS_KERNELS
void kokkos_kernels_sum(benchmark::State& state) {
  time_sum(state, [](const auto& exec, const auto& data, const auto& result) { KokkosBlas::sum(exec, result, data); });
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const Kokkos::ScopeGuard kokkos(argc, argv);
  const bool smoke = ksync::bench::take_smoke_flag(argc, argv);
  for (const auto n : ksync::bench::reduce_sizes(smoke)) {
    benchmark::RegisterBenchmark("portable/reduce/sum/float", portable_reduce)->Arg(n)->UseManualTime();
    benchmark::RegisterBenchmark("portable/device_copy/float", portable_device_copy)->Arg(n)->UseManualTime();
#if KSYNC_HAS_KOKKOS_KERNELS
    benchmark::RegisterBenchmark("kokkos_kernels/sum/float", kokkos_kernels_sum)->Arg(n)->UseManualTime();
#endif
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("kokkos_version", std::to_string(KOKKOS_VERSION));
  benchmark::AddCustomContext("kokkos_execution_space", Exec::name());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
