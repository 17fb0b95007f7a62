// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Native reduction: ksync::cuda::reduce beside CUB's DeviceReduce::Sum (the vendor baseline) and a
// device-to-device copy (the bandwidth ceiling), all timed with CUDA events on one stream in one run.
// Exits 77 (CTest: skipped) when no GPU is visible.
#include "../common.hpp"

#include <ksync/cuda/detail/device_buffer.hpp>
#include <ksync/cuda/detail/error.hpp>
#include <ksync/cuda/detail/runtime.hpp>
#include <ksync/cuda/device/reduce.hpp>

#include <benchmark/benchmark.h>
#include <cub/device/device_reduce.cuh>

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace {

// x[i] = i % 8: see ksync::bench::pattern_sum.
__global__ void fill_pattern(float* data, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    data[i] = static_cast<float>(i % 8);
  }
}

ksync::cuda::device_buffer<float> make_input(std::int64_t n) {
  ksync::cuda::device_buffer<float> data(static_cast<std::size_t>(n));
  fill_pattern<<<1024, 256>>>(data.data(), n);
  KSYNC_CUDA_CHECK(cudaGetLastError());
  KSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  return data;
}

// Times `run` per iteration with events recorded on `stream` around it, after one untimed call.
template <class Run>
void time_on_stream(benchmark::State& state, cudaStream_t stream, std::int64_t bytes_per_call, Run&& run) {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  KSYNC_CUDA_CHECK(cudaEventCreate(&start));
  KSYNC_CUDA_CHECK(cudaEventCreate(&stop));
  run();  // warm-up, untimed: module loading, the scratch pool's first allocation
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (auto _ : state) {
    KSYNC_CUDA_CHECK(cudaEventRecord(start, stream));
    run();
    KSYNC_CUDA_CHECK(cudaEventRecord(stop, stream));
    KSYNC_CUDA_CHECK(cudaEventSynchronize(stop));
    float milliseconds = 0;
    KSYNC_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start, stop));
    state.SetIterationTime(milliseconds * 1e-3);
  }
  KSYNC_CUDA_CHECK(cudaEventDestroy(start));
  KSYNC_CUDA_CHECK(cudaEventDestroy(stop));
  state.SetBytesProcessed(state.iterations() * bytes_per_call);
}

void check_sum(benchmark::State& state, const ksync::cuda::device_buffer<float>& result, std::int64_t n) {
  ksync::bench::check_pattern_sum(state, result.to_host().at(0), n);
}

void native_reduce(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const auto data = make_input(n);
  ksync::cuda::device_buffer<float> result(1);
  time_on_stream(state, cudaStreamPerThread, n * 4, [&] {
    ksync::cuda::reduce(cudaStreamPerThread, data.data(), static_cast<std::size_t>(n), result.data());
  });
  check_sum(state, result, n);
  state.counters["n"] = static_cast<double>(n);
}

void cub_reduce(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const auto data = make_input(n);
  ksync::cuda::device_buffer<float> result(1);
  std::size_t temp_bytes = 0;
  KSYNC_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, data.data(), result.data(), n, cudaStreamPerThread));
  ksync::cuda::device_buffer<unsigned char> temp(temp_bytes);
  time_on_stream(state, cudaStreamPerThread, n * 4, [&] {
    KSYNC_CUDA_CHECK(
        cub::DeviceReduce::Sum(temp.data(), temp_bytes, data.data(), result.data(), n, cudaStreamPerThread));
  });
  check_sum(state, result, n);
  state.counters["n"] = static_cast<double>(n);
}

void native_device_copy(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const auto source = make_input(n);
  ksync::cuda::device_buffer<float> target(static_cast<std::size_t>(n));
  time_on_stream(state, cudaStreamPerThread, 2 * n * 4, [&] {
    KSYNC_CUDA_CHECK(cudaMemcpyAsync(target.data(), source.data(), static_cast<std::size_t>(n) * 4,
                                     cudaMemcpyDeviceToDevice, cudaStreamPerThread));
  });
  state.counters["n"] = static_cast<double>(n);
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = ksync::bench::take_smoke_flag(argc, argv);
  if (ksync::cuda::visible_device_count() == 0) {
    std::printf("ksync_native_bench: no CUDA GPU visible; the native benchmarks need one (skipped)\n");
    return 77;
  }
  for (const auto n : ksync::bench::reduce_sizes(smoke)) {
    benchmark::RegisterBenchmark("native/reduce/sum/float", native_reduce)->Arg(n)->UseManualTime();
    benchmark::RegisterBenchmark("cub/reduce/sum/float", cub_reduce)->Arg(n)->UseManualTime();
    benchmark::RegisterBenchmark("native/device_copy/float", native_device_copy)->Arg(n)->UseManualTime();
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  cudaDeviceProp properties{};
  KSYNC_CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
  benchmark::AddCustomContext("gpu", properties.name);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
