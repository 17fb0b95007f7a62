// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Entry point of the native benchmark suites. Exits 77 (CTest: skipped) when no GPU is visible.
#include "../common.hpp"

#include <ksync/cuda/detail/error.hpp>
#include <ksync/cuda/detail/runtime.hpp>

#include <benchmark/benchmark.h>

#include <cstdio>

int main(int argc, char** argv) {
  const bool smoke = ksync::bench::take_smoke_flag(argc, argv);
  if (ksync::cuda::visible_device_count() == 0) {
    std::printf("ksync_native_bench: no CUDA GPU visible; the native benchmarks need one (skipped)\n");
    return 77;
  }
  ksync::bench::register_reduce_benchmarks(smoke);
  ksync::bench::register_block_benchmarks(smoke);
  ksync::bench::register_barrier_benchmarks(smoke);
  ksync::bench::register_iteration_benchmarks(smoke);
  ksync::bench::register_pipeline_benchmarks(smoke);
  ksync::bench::register_concurrency_benchmarks(smoke);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  cudaDeviceProp properties{};
  KSYNC_CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
  benchmark::AddCustomContext("gpu", properties.name);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
