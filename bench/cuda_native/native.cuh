// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the native benchmark suites share: the input pattern and timing with CUDA events on one stream.
#pragma once

#include "../common.hpp"

#include <ksync/cg_types.hpp>
#include <ksync/cuda/device/cluster_support.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/runtime.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ksync::bench {

// Internal linkage: each suite's translation unit gets its own copy of the fill kernel and the helpers.
namespace {

// Whether this device refuses a CG form (persistent_cluster where clusters cannot run): then the row is marked
// refused with the reason, not run.
inline bool refuses_cg_form(benchmark::State& state, ksync::cg_form form) {
  if (form != ksync::cg_form::persistent_cluster) return false;
  const auto support = ksync::cuda::query_cluster_support(ksync::cuda::stream_device(cudaStreamPerThread));
  if (!support.available) refused(state, support.reason);
  return !support.available;
}

// x[i] = pattern_value(i) (checks.hpp).
template <class T>
__global__ void fill_pattern(T* data, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    data[i] = static_cast<T>(pattern_value(i));
  }
}

template <class T = float>
ksync::cuda::device_buffer<T> make_input(std::int64_t n) {
  ksync::cuda::device_buffer<T> data(static_cast<std::size_t>(n));
  fill_pattern<<<1024, 256>>>(data.data(), n);
  KSYNC_CUDA_CHECK(cudaGetLastError());
  KSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  return data;
}

// How many of data[0, n) differ from expected(i) (checks.hpp), added to *count.
template <class T, class Expected>
__global__ void count_mismatches(const T* data, std::int64_t n, Expected expected, unsigned long long* count) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  unsigned long long mine = 0;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    mine += same(data[i], expected(i)) ? 0 : 1;
  if (mine != 0) atomicAdd(count, mine);
}

// Fails the row unless every element of the device array data[0, n) equals expected(i). Runs after the
// stream's work (the legacy default stream waits for cudaStreamPerThread and every blocking stream).
template <class T, class Expected>
void check_elements(benchmark::State& state, const T* data, std::int64_t n, Expected expected,
                    const std::string& what) {
  ksync::cuda::device_buffer<unsigned long long> count(std::vector<unsigned long long>{0});
  count_mismatches<<<1024, 256>>>(data, n, expected, count.data());
  KSYNC_CUDA_CHECK(cudaGetLastError());
  check_mismatches(state, static_cast<std::int64_t>(count.to_host().at(0)), n, what);
}

// Times `run` with events recorded on `stream` around each sample (see ksync::bench::timing), after one
// untimed call; reports the time per call.
template <class Run>
void time_on_stream(benchmark::State& state, cudaStream_t stream, std::int64_t bytes_per_call, Run&& run,
                    timing mode = timing::throughput) {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  KSYNC_CUDA_CHECK(cudaEventCreate(&start));
  KSYNC_CUDA_CHECK(cudaEventCreate(&stop));
  run();  // warm-up, untimed: module loading, the workspace's first allocation
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));
  const int calls = calls_per_sample(mode, bytes_per_call);
  // Cold mode: twice the L2 written before each sample, on the same stream, before the start event.
  int l2_bytes = 0;
  if (mode == timing::cold)
    KSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, ksync::cuda::stream_device(stream)));
  const ksync::cuda::device_buffer<unsigned char> flush(2 * static_cast<std::size_t>(l2_bytes));
  int sample = 0;
  for (auto _ : state) {
    if (mode == timing::cold) KSYNC_CUDA_CHECK(cudaMemsetAsync(flush.data(), ++sample & 0xff, flush.size(), stream));
    KSYNC_CUDA_CHECK(cudaEventRecord(start, stream));
    for (int call = 0; call < calls; ++call)
      run();
    KSYNC_CUDA_CHECK(cudaEventRecord(stop, stream));
    KSYNC_CUDA_CHECK(cudaEventSynchronize(stop));
    float milliseconds = 0;
    KSYNC_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start, stop));
    state.SetIterationTime(milliseconds * 1e-3);
  }
  KSYNC_CUDA_CHECK(cudaEventDestroy(start));
  KSYNC_CUDA_CHECK(cudaEventDestroy(stop));
  record_calls(state, calls, bytes_per_call);
}

// The bandwidth ceiling of the same run: a device-to-device cudaMemcpyAsync.
void device_copy(benchmark::State& state, timing mode) {
  const std::int64_t n = state.range(0);
  const auto source = make_input(n);
  ksync::cuda::device_buffer<float> target(static_cast<std::size_t>(n));
  time_on_stream(
      state, cudaStreamPerThread, 2 * n * 4,
      [&] {
        KSYNC_CUDA_CHECK(cudaMemcpyAsync(target.data(), source.data(), static_cast<std::size_t>(n) * 4,
                                         cudaMemcpyDeviceToDevice, cudaStreamPerThread));
      },
      mode);
  state.counters["n"] = static_cast<double>(n);
}

}  // namespace

}  // namespace ksync::bench
