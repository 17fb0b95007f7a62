// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The overlapped copy/compute pipeline, native: ksync::cuda::pipeline_plan over y = 2x on 2^24 floats for
// every stream count, chunk size and issue order, and what bounds it, measured in the same run: pinned (and
// pageable) copies one way, pinned copies both ways at once, and the kernel alone. tools/pipeline-tables
// turns them into the ideal bound and the overlap efficiency. A pipeline sample is one run, from its origin
// event to the last stream's end (the plan's streams, events and device memory are made before timing).
// With KSYNC_TRACE_DIR set, every pipeline row writes one run's timeline there as a Chrome trace, named after
// the row ('/' as '-').
#include "native.cuh"

#include <ksync/cuda/device/pipeline.cuh>
#include <ksync/cuda/device/transform.cuh>
#include <ksync/cuda/host_memory.hpp>
#include <ksync/cuda/stream.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {

using ksync::bench::scale_by_two;
using ksync::cuda::event;
using ksync::cuda::pinned_buffer;
using ksync::cuda::stream;

// n input and n output floats on the host, pinned (cudaHostAlloc) or pageable (std::vector).
class host_pair {
 public:
  host_pair(std::size_t n, bool pinned)
      : pinned_in_(pinned ? n : 0),
        pinned_out_(pinned ? n : 0),
        pageable_in_(pinned ? 0 : n),
        pageable_out_(pinned ? 0 : n),
        pinned_(pinned) {}
  [[nodiscard]] std::span<float> in() { return pinned_ ? pinned_in_.span() : std::span<float>(pageable_in_); }
  [[nodiscard]] std::span<float> out() { return pinned_ ? pinned_out_.span() : std::span<float>(pageable_out_); }

 private:
  pinned_buffer<float> pinned_in_;
  pinned_buffer<float> pinned_out_;
  std::vector<float> pageable_in_;
  std::vector<float> pageable_out_;
  bool pinned_;
};

// The host buffers of every row of one kind, made once per process with the input filled (x[i] = i % 1024):
// pinning 2 x 64 MiB and filling the input cost more than a row's timed runs, and Google Benchmark calls a
// row's function several times (to size its batch, and once per repetition). Rows overwrite the output.
host_pair& shared_host_pair(std::size_t n, bool pinned) {
  static std::map<std::pair<std::size_t, bool>, std::unique_ptr<host_pair>> pairs;
  auto& slot = pairs[{n, pinned}];
  if (!slot) {
    slot = std::make_unique<host_pair>(n, pinned);
    const std::span<float> in = slot->in();
    for (std::size_t i = 0; i < n; ++i)
      in[i] = static_cast<float>(i % 1024);
  }
  return *slot;
}

enum class copy_kind { h2d, d2h, both_ways };

// One-way or both-ways copies of n floats between host memory and the device; a sample spans all of them.
void time_copies(benchmark::State& state, copy_kind kind, bool pinned, bool smoke) {
  const std::int64_t n = ksync::bench::pipeline_elements(smoke);
  const auto bytes = static_cast<std::size_t>(n) * sizeof(float);
  host_pair& host = shared_host_pair(static_cast<std::size_t>(n), pinned);
  float* host_in = host.in().data();
  float* host_out = host.out().data();
  const ksync::cuda::device_buffer<float> device_in(static_cast<std::size_t>(n));
  const ksync::cuda::device_buffer<float> device_out(static_cast<std::size_t>(n));
  const stream up;
  const stream down;
  const event start;
  const event up_done;
  const event stop;
  const auto run = [&] {
    start.record(up.get());
    start.make_wait(down.get());
    if (kind != copy_kind::d2h)
      KSYNC_CUDA_CHECK(cudaMemcpyAsync(device_in.data(), host_in, bytes, cudaMemcpyHostToDevice, up.get()));
    if (kind != copy_kind::h2d)
      KSYNC_CUDA_CHECK(cudaMemcpyAsync(host_out, device_out.data(), bytes, cudaMemcpyDeviceToHost, down.get()));
    up_done.record(up.get());
    up_done.make_wait(down.get());
    stop.record(down.get());
    stop.synchronize();
    return stop.milliseconds_since(start);
  };
  (void)run();  // warm-up
  for (auto _ : state)
    state.SetIterationTime(run() * 1e-3);
  const std::int64_t moved = kind == copy_kind::both_ways ? 2 * n * 4 : n * 4;
  state.SetBytesProcessed(state.iterations() * moved);
  state.counters["n"] = static_cast<double>(n);
  state.counters["bytes"] = static_cast<double>(moved);
}

// The kernel of the pipeline alone, over all n floats already on the device.
void time_kernel(benchmark::State& state, bool smoke) {
  const std::int64_t n = ksync::bench::pipeline_elements(smoke);
  const auto in = ksync::bench::make_input(n);
  const ksync::cuda::device_buffer<float> out(static_cast<std::size_t>(n));
  ksync::bench::time_on_stream(
      state, cudaStreamPerThread, n * 8,
      [&] {
        ksync::cuda::transform(cudaStreamPerThread, in.data(), static_cast<std::size_t>(n), out.data(), scale_by_two{});
      },
      ksync::bench::timing::latency);
  state.counters["n"] = static_cast<double>(n);
}

// Where a row's timeline goes (KSYNC_TRACE_DIR), once per row and process; empty when it needs none.
std::string trace_path(const std::string& name) {
  static std::set<std::string> traced;
  const char* directory = std::getenv("KSYNC_TRACE_DIR");
  if (directory == nullptr || !traced.insert(name).second) return {};
  std::string file = name;
  for (auto& c : file)
    if (c == '/') c = '-';
  return std::string(directory) + "/" + file + ".json";
}

void time_pipeline(benchmark::State& state, ksync::issue_order order, bool pinned, bool smoke) {
  const std::int64_t n = ksync::bench::pipeline_elements(smoke);
  const std::int64_t streams = state.range(0);
  const std::int64_t chunk_kib = state.range(1);
  const auto count = static_cast<std::size_t>(n);
  host_pair& host = shared_host_pair(count, pinned);
  const std::span<float> in = host.in();
  const std::span<float> out = host.out();
  // The output a previous call of this row left is erased: the check below sees only this call's runs.
  std::fill(out.begin(), out.end(), std::numeric_limits<float>::quiet_NaN());
  ksync::pipeline_config config{.chunk_elements = static_cast<std::size_t>(chunk_kib) * 1024 / sizeof(float),
                                .streams = static_cast<int>(streams),
                                .order = order};
  ksync::cuda::pipeline_plan<float> plan(count, config);
  const std::span<const float> input(in);
  (void)plan.run(input, out, scale_by_two{});  // warm-up: module loading, first touch
  for (auto _ : state)
    state.SetIterationTime(plan.run(input, out, scale_by_two{}).milliseconds * 1e-3);
  ksync::bench::check_twice(state, input, out);
  ksync::bench::record_pipeline(state, n, streams, chunk_kib);
  const std::string name = std::string("native/pipeline/") + (pinned ? "" : "pageable/") +
                           std::string(ksync::to_string(order)) + "/streams:" + std::to_string(streams) +
                           "/chunk_kib:" + std::to_string(chunk_kib);
  if (const std::string path = trace_path(name); !path.empty()) {
    config.record_timeline = true;
    ksync::cuda::pipeline_plan<float> traced(count, config);
    std::ofstream trace(path);
    ksync::cuda::write_chrome_trace(trace, traced.run(input, out, scale_by_two{}), name.c_str());
  }
}

}  // namespace

void ksync::bench::register_pipeline_benchmarks(bool smoke) {
  struct copy_row {
    const char* name;
    copy_kind kind;
    bool pinned;
  };
  for (const auto& [name, kind, pinned] :
       {copy_row{"h2d_pinned", copy_kind::h2d, true}, copy_row{"d2h_pinned", copy_kind::d2h, true},
        copy_row{"both_ways_pinned", copy_kind::both_ways, true}, copy_row{"h2d_pageable", copy_kind::h2d, false},
        copy_row{"d2h_pageable", copy_kind::d2h, false}}) {
    benchmark::RegisterBenchmark(std::string("native/pipeline/bandwidth/") + name, time_copies, kind, pinned, smoke)
        ->UseManualTime();
  }
  benchmark::RegisterBenchmark("native/pipeline/kernel", time_kernel, smoke)->UseManualTime();
  for (const auto order : {ksync::issue_order::depth_first, ksync::issue_order::breadth_first}) {
    auto* rows = benchmark::RegisterBenchmark("native/pipeline/" + std::string(ksync::to_string(order)), time_pipeline,
                                              order, true, smoke);
    rows->ArgNames({"streams", "chunk_kib"})->UseManualTime();
    for (const auto streams : pipeline_stream_counts(smoke))
      for (const auto kib : pipeline_chunk_kib(smoke))
        rows->Args({streams, kib});
  }
  // The classic four-stream configuration (4 streams, 2^20-float chunks) from pageable memory.
  benchmark::RegisterBenchmark("native/pipeline/pageable/depth_first", time_pipeline, ksync::issue_order::depth_first,
                               false, smoke)
      ->ArgNames({"streams", "chunk_kib"})
      ->Args({4, smoke ? 64 : 4096})
      ->UseManualTime();
}
