// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The overlapped copy/compute pipeline, portable: ksync::pipeline_plan over y = 2x on 2^24 floats with
// Kokkos::SharedHostPinnedSpace host Views (HostSpace for the pageable row), for every instance count, chunk
// size and issue order. A sample is one blocking run, timed on the host (the plan's instances and device
// Views are made before timing). The native rows and the bandwidths that bound both are in
// bench/cuda_native/pipeline_bench.cu; tools/pipeline-tables compares them.
#include "portable.hpp"

#include <ksync/pipeline.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <string>

namespace {

using ksync::bench::Exec;
using ksync::bench::scale_by_two;

template <class HostSpace>
struct host_pair {
  Kokkos::View<float*, HostSpace> in;
  Kokkos::View<float*, HostSpace> out;
};

// The host Views of every row of one memory space, made once per process with the input filled
// (x[i] = i % 1024): allocating (pinning) 2 x 64 MiB and filling the input cost more than a row's timed
// runs, and Google Benchmark calls a row's function several times. Released at Kokkos::finalize.
template <class HostSpace>
host_pair<HostSpace>& shared_host_pair(std::size_t count) {
  static std::map<std::size_t, host_pair<HostSpace>> pairs;
  [[maybe_unused]] static const bool released_at_finalize = [] {
    Kokkos::push_finalize_hook([] { pairs.clear(); });
    return true;
  }();
  auto [slot, made] = pairs.try_emplace(count);
  if (made) {
    slot->second = {Kokkos::View<float*, HostSpace>("ksync::bench::host_in", count),
                    Kokkos::View<float*, HostSpace>("ksync::bench::host_out", count)};
    for (std::size_t i = 0; i < count; ++i)
      slot->second.in(i) = static_cast<float>(i % 1024);
  }
  return slot->second;
}

template <class HostSpace>
void time_pipeline(benchmark::State& state, ksync::issue_order order, bool smoke) {
  const std::int64_t n = ksync::bench::pipeline_elements(smoke);
  const std::int64_t streams = state.range(0);
  const std::int64_t chunk_kib = state.range(1);
  const auto count = static_cast<std::size_t>(n);
  const auto& [in, out] = shared_host_pair<HostSpace>(count);
  // The output a previous call of this row left is erased: the check below sees only this call's runs.
  Kokkos::deep_copy(out, std::numeric_limits<float>::quiet_NaN());
  const Exec exec;
  ksync::pipeline_plan<Exec, float> plan(exec, count,
                                         {.chunk_elements = static_cast<std::size_t>(chunk_kib) * 1024 / sizeof(float),
                                          .streams = static_cast<int>(streams),
                                          .order = order});
  plan.run(in, out, scale_by_two{});  // warm-up: kernel loading, first touch
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    plan.run(in, out, scale_by_two{});
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  ksync::bench::check_twice(state, std::span<const float>(in.data(), in.extent(0)),
                            std::span<const float>(out.data(), out.extent(0)));
  ksync::bench::record_pipeline(state, n, streams, chunk_kib);
}

}  // namespace

void ksync::bench::register_pipeline_benchmarks(bool smoke) {
  for (const auto order : {ksync::issue_order::depth_first, ksync::issue_order::breadth_first}) {
    auto* rows = benchmark::RegisterBenchmark("portable/pipeline/" + std::string(ksync::to_string(order)),
                                              time_pipeline<Kokkos::SharedHostPinnedSpace>, order, smoke);
    rows->ArgNames({"streams", "chunk_kib"})->UseManualTime();
    for (const auto streams : pipeline_stream_counts(smoke))
      for (const auto kib : pipeline_chunk_kib(smoke))
        rows->Args({streams, kib});
  }
  // The classic four-stream configuration (4 instances, 2^20-float chunks) from pageable memory.
  benchmark::RegisterBenchmark("portable/pipeline/pageable/depth_first", time_pipeline<Kokkos::HostSpace>,
                               ksync::issue_order::depth_first, smoke)
      ->ArgNames({"streams", "chunk_kib"})
      ->Args({4, smoke ? 64 : 4096})
      ->UseManualTime();
}
