// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Portable reduction: ksync::reduce on Kokkos' default execution space, beside a Kokkos device copy (the
// bandwidth ceiling measured in the same run) and, when built with it, KokkosBlas::sum.
#include "portable.hpp"

#include <ksync/config.hpp>
#include <ksync/reduce.hpp>
#if KSYNC_HAS_KOKKOS_KERNELS
#include <KokkosBlas1_sum.hpp>
#endif

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>

namespace {

using ksync::bench::Exec;
using ksync::bench::make_input;
using ksync::bench::time_on_instance;

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

#if KSYNC_HAS_KOKKOS_KERNELS
void kokkos_kernels_sum(benchmark::State& state) {
  time_sum(state, [](const auto& exec, const auto& data, const auto& result) { KokkosBlas::sum(exec, result, data); });
}
#endif

}  // namespace

void ksync::bench::register_reduce_benchmarks(bool smoke) {
  for (const auto n : ksync::bench::reduce_sizes(smoke)) {
    benchmark::RegisterBenchmark("portable/reduce/sum/float", portable_reduce)->Arg(n)->UseManualTime();
    benchmark::RegisterBenchmark("portable/device_copy/float", ksync::bench::device_copy)->Arg(n)->UseManualTime();
#if KSYNC_HAS_KOKKOS_KERNELS
    benchmark::RegisterBenchmark("kokkos_kernels/sum/float", kokkos_kernels_sum)->Arg(n)->UseManualTime();
#endif
  }
}
