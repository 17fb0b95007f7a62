// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Native reduction: ksync::cuda::reduce beside CUB's DeviceReduce::Sum (the vendor baseline) and a
// device-to-device copy (the bandwidth ceiling), all timed with CUDA events on one stream in one run.
#include "native.cuh"

#include <ksync/cuda/detail/device_buffer.hpp>
#include <ksync/cuda/detail/error.hpp>
#include <ksync/cuda/device/reduce.hpp>

#include <benchmark/benchmark.h>
#include <cub/device/device_reduce.cuh>

#include <cmath>
#include <cstdint>

namespace {

using ksync::bench::make_input;
using ksync::bench::time_on_stream;

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

}  // namespace

void ksync::bench::register_reduce_benchmarks(bool smoke) {
  for (const auto n : ksync::bench::reduce_sizes(smoke)) {
    benchmark::RegisterBenchmark("native/reduce/sum/float", native_reduce)->Arg(n)->UseManualTime();
    benchmark::RegisterBenchmark("cub/reduce/sum/float", cub_reduce)->Arg(n)->UseManualTime();
    benchmark::RegisterBenchmark("native/device_copy/float", ksync::bench::device_copy)->Arg(n)->UseManualTime();
  }
}
