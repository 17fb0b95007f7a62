// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Portable ksync::transform (y = 2x) on Kokkos' default execution space: the `kokkos` and `tuned` strategies,
// the native kernel through the bridge on the CUDA backend, and y = 2x written directly with Kokkos. The
// bandwidth ceiling to compare with, portable/device_copy/float, is timed by reduce_bench.cpp (same bytes:
// read n, write n).
#include "portable.hpp"

#include <ksync/backend.hpp>  // has_native_bridge, runs_on_host
#include <ksync/transform.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ksync::bench {
namespace {

struct Twice {
  KOKKOS_FUNCTION float operator()(float x) const { return 2.0f * x; }
};

void time_transform(benchmark::State& state, ksync::transform_strategy strategy, timing mode = timing::throughput) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const auto in = make_input(exec, n);
  const Kokkos::View<float*> out(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "out"), n);
  time_on_instance(state, exec, 2 * n * 4, [&] { ksync::transform(exec, in, out, Twice{}, strategy); }, mode);
  check_elements(state, exec, out, twice_pattern{}, "y = 2x");
  state.counters["n"] = static_cast<double>(n);
}

// y = 2x written directly with Kokkos, as applications write it, beside the library's `kokkos` strategy
// (which forces a 64-bit index): the default RangePolicy, a 32-bit index, and a 32-bit index with launch
// bounds of 256 threads and 4 blocks per multiprocessor (what ksync's tuned reduction uses). These show what
// the Kokkos baseline costs by its own form, not by ksync's choice of it.
template <class Index>
struct TwiceAt {
  Kokkos::View<const float*> in;
  Kokkos::View<float*> out;
  KOKKOS_FUNCTION void operator()(Index i) const { out(i) = 2.0f * in(i); }
};

template <class Policy>
void time_kokkos_for(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const auto in = make_input(exec, n);
  const Kokkos::View<float*> out(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "out"), n);
  using Index = typename Policy::index_type;
  time_on_instance(state, exec, 2 * n * 4, [&] {
    Kokkos::parallel_for("kokkos_for", Policy(exec, 0, static_cast<Index>(n)), TwiceAt<Index>{in, out});
  });
  check_elements(state, exec, out, twice_pattern{}, "y = 2x");
  state.counters["n"] = static_cast<double>(n);
}

}  // namespace

void register_transform_benchmarks(bool smoke) {
  constexpr bool bridge = ksync::has_native_bridge<Exec>;
  for (const auto n : reduce_sweep_sizes(smoke, ksync::runs_on_host<Exec>)) {
    for (const auto strategy :
         ksync::implementations_of_half<ksync::transform_strategy>(ksync::strategy_half::portable)) {
      add_timed("portable/transform/float/" + std::string(ksync::to_string(strategy)), n, time_transform, strategy,
                timing::throughput);
    }
    add_timed("kokkos/transform/float/range_policy", n, time_kokkos_for<Kokkos::RangePolicy<Exec>>);
    add_timed("kokkos/transform/float/index_int32", n,
              time_kokkos_for<Kokkos::RangePolicy<Exec, Kokkos::IndexType<int>>>);
    add_timed("kokkos/transform/float/index_int32_launch_bounds_256_4", n,
              time_kokkos_for<Kokkos::RangePolicy<Exec, Kokkos::IndexType<int>, Kokkos::LaunchBounds<256, 4>>>);
    if (bridge) {
      add_timed("bridge/transform/float/native", n, time_transform, ksync::transform_strategy::native,
                timing::throughput);
    }
  }
  // Cold rows (GPU backends, whose L2 the hot rows' smaller sizes fit in): one call after the cache was
  // overwritten.
  for (const auto n : ksync::runs_on_host<Exec> ? std::vector<std::int64_t>{} : cold_sizes(smoke)) {
    const auto cold = timing::cold;
    add_timed("portable/transform_cold/float/tuned", n, time_transform, ksync::transform_strategy::tuned, cold)
        ->Iterations(cold_samples(smoke));
  }
}

}  // namespace ksync::bench
