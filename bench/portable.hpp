// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the portable benchmark suites share: the input pattern and timing on one execution-space instance.
#pragma once

#include "common.hpp"

#include <ksync/backend.hpp>

#include <Kokkos_Core.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

namespace ksync::bench {

using Exec = Kokkos::DefaultExecutionSpace;

// x[i] = pattern_value(i) (checks.hpp).
struct FillPattern {
  Kokkos::View<float*> data;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { data(i) = pattern_value(i); }
};

inline Kokkos::View<float*> make_input(const Exec& exec, std::int64_t n) {
  const Kokkos::View<float*> data(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::bench::data"), n);
  Kokkos::parallel_for("ksync::bench::fill", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                       FillPattern{data});
  exec.fence("ksync::bench::fill");
  return data;
}

// How many elements of `data` differ from expected(i) (checks.hpp).
template <class View, class Expected>
struct CountMismatches {
  View data;
  Expected expected;
  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t& count) const {
    count += same(data(i), expected(i)) ? 0 : 1;
  }
};

// Fails the row unless every element of the rank-1 View `data` equals expected(i). A blocking reduction on
// `exec`: it runs after the instance's timed work.
template <class View, class Expected>
void check_elements(benchmark::State& state, const Exec& exec, const View& data, Expected expected,
                    const std::string& what) {
  const auto n = static_cast<std::int64_t>(data.extent(0));
  std::int64_t mismatches = 0;
  Kokkos::parallel_reduce("ksync::bench::check", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                          CountMismatches<View, Expected>{data, expected}, mismatches);
  check_mismatches(state, mismatches, n, what);
}

// Times `run` as seen by `exec`: each sample is a batch of calls (see ksync::bench::timing) followed by a
// fence of that instance only, after one untimed call; reports the time per call.
template <class Run>
void time_on_instance(benchmark::State& state, const Exec& exec, std::int64_t bytes_per_call, Run&& run,
                      timing mode = timing::throughput) {
  run();  // warm-up, untimed: first touch of fresh pages, kernel loading, Kokkos' reduction scratch
  exec.fence("ksync::bench::warm_up");
  // A sample runs from the host's first launch to the instance's fence, which a GPU's event timing (the native
  // suite's) does not pay: some 5-10 us, 7 % of a double Dot at 2^24 (256 MiB, 70 us on an H200) when it ran
  // alone in its sample. GPU backends batch up to 2 GiB a sample; host backends, whose calls take
  // milliseconds there, keep 256 MiB (the main job's time).
  const int calls =
      calls_per_sample(mode, bytes_per_call, runs_on_host<Exec> ? std::int64_t{256} << 20 : std::int64_t{2} << 30);
  // Cold mode (GPU backends): 512 MiB written before each sample, more than any GPU's last-level cache
  // (Kokkos does not say its size); the instance is fenced after it, so a sample starts from idle.
  const Kokkos::View<unsigned char*> flush(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::bench::flush"),
                                           mode == timing::cold ? std::size_t{512} << 20 : 0);
  unsigned char sample = 0;
  for (auto _ : state) {
    if (mode == timing::cold) {
      Kokkos::deep_copy(exec, flush, ++sample);
      exec.fence("ksync::bench::cache_flushed");
    }
    Kokkos::Timer timer;
    for (int call = 0; call < calls; ++call)
      run();
    exec.fence("ksync::bench::timed");
    state.SetIterationTime(timer.seconds());
  }
  record_calls(state, calls, bytes_per_call);
}

// The bandwidth ceiling of the same run: a device-to-device deep_copy on the instance.
inline void device_copy(benchmark::State& state, timing mode) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const auto source = make_input(exec, n);
  const Kokkos::View<float*> target(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::bench::copy"), n);
  time_on_instance(
      state, exec, 2 * n * static_cast<std::int64_t>(sizeof(float)), [&] { Kokkos::deep_copy(exec, target, source); },
      mode);
  state.counters["n"] = static_cast<double>(n);
}

}  // namespace ksync::bench
