// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Stream concurrency, measured (native): the legacy default stream pitfall against a translation
// unit built with --default-stream per-thread; many small kernels on one stream and on several; how long a
// short kernel waits behind a long one that fills the GPU, on a high-priority stream and on an equal one;
// managed memory migrated page by page on fault, prefetched, and the same data copied explicitly from
// pinned memory. A sample is timed with events; what each row's time spans is said at its function.
#include "default_stream_case.cuh"
#include "native.cuh"

#include <ksync/cuda/device/transform.cuh>
#include <ksync/cuda/host_memory.hpp>
#include <ksync/cuda/runtime.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ksync::bench {
float per_thread_two_streams_with_a_default_launch_between(std::uint64_t nanoseconds);
}

namespace {

using ksync::bench::scale_by_two;
using ksync::bench::spin_kernel;
using ksync::cuda::event;
using ksync::cuda::stream;

constexpr std::uint64_t pitfall_kernel_ns = 1'000'000;  // 1 ms per streamed kernel

// Legacy (this translation unit) or per-thread (default_stream_per_thread.cu): milliseconds until both
// streams are done; kernel_ms is one streamed kernel, so seconds / kernel near 1 means they overlapped.
void time_default_stream(benchmark::State& state, bool per_thread) {
  const auto run = [&] {
    return per_thread ? ksync::bench::per_thread_two_streams_with_a_default_launch_between(pitfall_kernel_ns)
                      : ksync::bench::two_streams_with_a_default_launch_between(pitfall_kernel_ns);
  };
  (void)run();
  for (auto _ : state)
    state.SetIterationTime(run() * 1e-3);
  state.counters["kernel_ms"] = static_cast<double>(pitfall_kernel_ns) * 1e-6;
}

// `kernels` kernels of one 32-thread block, each busy for 10 us, issued round-robin over `streams`
// non-blocking streams: from the first launch until every stream is done.
void time_small_kernels(benchmark::State& state) {
  const auto streams_wanted = static_cast<std::size_t>(state.range(0));
  constexpr int kernels = 64;
  constexpr std::uint64_t kernel_ns = 10'000;
  std::vector<stream> streams(streams_wanted);
  const event start;
  std::vector<event> done(streams_wanted);
  const auto run = [&] {
    start.record(streams.front().get());
    for (const auto& s : streams)
      start.make_wait(s.get());
    for (int k = 0; k < kernels; ++k)
      spin_kernel<<<1, 32, 0, streams[static_cast<std::size_t>(k) % streams_wanted].get()>>>(kernel_ns);
    KSYNC_CUDA_CHECK(cudaGetLastError());
    float milliseconds = 0;
    for (std::size_t s = 0; s < streams_wanted; ++s)
      done[s].record(streams[s].get());
    for (std::size_t s = 0; s < streams_wanted; ++s) {
      done[s].synchronize();
      milliseconds = std::max(milliseconds, done[s].milliseconds_since(start));
    }
    return milliseconds;
  };
  (void)run();
  for (auto _ : state)
    state.SetIterationTime(run() * 1e-3);
  state.counters["kernels"] = kernels;
  state.counters["kernel_us"] = static_cast<double>(kernel_ns) * 1e-3;
}

// A long kernel on a lowest-priority stream — 16 waves of resident blocks, each block busy for 50 us — then
// a one-block 5 us kernel on a stream of the greatest priority (or of the same, lowest, priority): from
// the short kernel's launch to its end.
void time_priority(benchmark::State& state, bool high) {
  const auto range = ksync::cuda::stream_priority_range();
  const stream background(range.lowest);
  const stream urgent(high ? range.greatest : range.lowest);
  int resident = 0;
  KSYNC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, spin_kernel, 128, 0));
  const unsigned int waves = 16;
  const unsigned int blocks =
      waves * static_cast<unsigned int>(resident) * static_cast<unsigned int>(ksync::cuda::multiprocessor_count(0));
  const event launched;
  const event finished;
  const auto run = [&] {
    spin_kernel<<<blocks, 128, 0, background.get()>>>(50'000);
    launched.record(urgent.get());
    spin_kernel<<<1, 32, 0, urgent.get()>>>(5'000);
    KSYNC_CUDA_CHECK(cudaGetLastError());
    finished.record(urgent.get());
    finished.synchronize();
    const float milliseconds = finished.milliseconds_since(launched);
    background.synchronize();
    return milliseconds;
  };
  (void)run();
  for (auto _ : state)
    state.SetIterationTime(run() * 1e-3);
  state.counters["background_blocks"] = blocks;
  state.counters["priority"] = high ? range.greatest : range.lowest;
}

enum class managed_way { fault, prefetch, explicit_copy };

// y = 2x over 2^24 floats that start in host memory, until y is on the device: managed memory migrated on
// fault by the kernel, managed memory prefetched then transformed, or pinned memory copied to a plain
// device allocation then transformed. Before each sample the managed pages go back to the host (untimed).
void time_managed(benchmark::State& state, managed_way way, bool smoke) {
  const std::int64_t n = ksync::bench::pipeline_elements(smoke);
  const auto count = static_cast<std::size_t>(n);
  int device = 0;
  KSYNC_CUDA_CHECK(cudaGetDevice(&device));
  const stream s;
  const event start;
  const event stop;
  const ksync::cuda::managed_buffer<float> managed_in(way == managed_way::explicit_copy ? 0 : count);
  const ksync::cuda::managed_buffer<float> managed_out(way == managed_way::explicit_copy ? 0 : count);
  const ksync::cuda::pinned_buffer<float> pinned_in(way == managed_way::explicit_copy ? count : 0);
  const ksync::cuda::device_buffer<float> device_in(way == managed_way::explicit_copy ? count : 0);
  const ksync::cuda::device_buffer<float> device_out(way == managed_way::explicit_copy ? count : 0);
  float* host_in = way == managed_way::explicit_copy ? pinned_in.data() : managed_in.data();
  for (std::size_t i = 0; i < count; ++i)
    host_in[i] = static_cast<float>(i % 1024);
  const auto run = [&] {
    if (way != managed_way::explicit_copy) {
      managed_in.prefetch_to_host(s.get());
      managed_out.prefetch_to_host(s.get());
    }
    start.record(s.get());
    if (way == managed_way::explicit_copy) {
      KSYNC_CUDA_CHECK(
          cudaMemcpyAsync(device_in.data(), pinned_in.data(), count * sizeof(float), cudaMemcpyHostToDevice, s.get()));
      ksync::cuda::transform(s.get(), device_in.data(), count, device_out.data(), scale_by_two{});
    } else {
      if (way == managed_way::prefetch) {
        managed_in.prefetch_to_device(s.get(), device);
        managed_out.prefetch_to_device(s.get(), device);
      }
      ksync::cuda::transform(s.get(), managed_in.data(), count, managed_out.data(), scale_by_two{});
    }
    stop.record(s.get());
    stop.synchronize();
    return stop.milliseconds_since(start);
  };
  (void)run();
  for (auto _ : state)
    state.SetIterationTime(run() * 1e-3);
  state.SetBytesProcessed(state.iterations() * n * 4);
  state.counters["n"] = static_cast<double>(n);
}

}  // namespace

void ksync::bench::register_concurrency_benchmarks(bool smoke) {
  benchmark::RegisterBenchmark("native/concurrency/default_stream/legacy", time_default_stream, false)->UseManualTime();
  benchmark::RegisterBenchmark("native/concurrency/default_stream/per_thread", time_default_stream, true)
      ->UseManualTime();
  benchmark::RegisterBenchmark("native/concurrency/small_kernels", time_small_kernels)
      ->ArgName("streams")
      ->Arg(1)
      ->Arg(4)
      ->Arg(16)
      ->Arg(64)
      ->UseManualTime();
  benchmark::RegisterBenchmark("native/concurrency/priority/greatest", time_priority, true)->UseManualTime();
  benchmark::RegisterBenchmark("native/concurrency/priority/equal", time_priority, false)->UseManualTime();
  for (const auto& [name, way] : {std::pair{"fault", managed_way::fault}, std::pair{"prefetch", managed_way::prefetch},
                                  std::pair{"explicit_copy", managed_way::explicit_copy}}) {
    benchmark::RegisterBenchmark(std::string("native/concurrency/managed/") + name, time_managed, way, smoke)
        ->UseManualTime();
  }
}
