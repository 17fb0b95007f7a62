// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Entry point of the native benchmark suites. Exits 77 (CTest: skipped) when no GPU is visible, 1 when a
// row failed its result check (checks.hpp).
#include "../common.hpp"
#include "../sparse.hpp"  // take_matrix_flag

#include <ksync/cuda/error.hpp>
#include <ksync/cuda/runtime.hpp>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  const bool smoke = ksync::bench::take_smoke_flag(argc, argv);
  const std::string matrix_file = ksync::bench::take_matrix_flag(argc, argv);  // cg_csr rows on a Matrix Market file
  switch (ksync::cuda::gpu_presence_here(1)) {
    case ksync::cuda::gpu_presence::run:
      break;
    case ksync::cuda::gpu_presence::skip:
      std::printf("ksync_native_bench: no CUDA GPU visible; the native benchmarks need one (skipped)\n");
      return 77;
    case ksync::cuda::gpu_presence::fail:
      std::fprintf(stderr,
                   "ksync_native_bench: the driver lists %d NVIDIA GPU(s) but the CUDA runtime sees none: this "
                   "process cannot reach the machine's GPU (no driver library here, or a driver older than the "
                   "runtime); not reporting the suite as skipped\n",
                   ksync::cuda::driver_listed_gpu_count());
      return 1;
  }
  ksync::bench::register_families_of_both_halves(smoke, matrix_file);
  ksync::bench::register_concurrency_benchmarks(smoke);
  ksync::bench::register_node_benchmarks(smoke);
  return ksync::bench::run_registered(argc, argv, "ksync_native_bench", [] {
    cudaDeviceProp properties{};
    KSYNC_CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
    benchmark::AddCustomContext("gpu", properties.name);
    // Where the CG's bytes floors stop being bounds: a system whose vectors all fit the L2 need not reach DRAM.
    benchmark::AddCustomContext("l2_cache_bytes", std::to_string(properties.l2CacheSize));
    int driver = 0;
    int runtime = 0;
    KSYNC_CUDA_CHECK(cudaDriverGetVersion(&driver));
    KSYNC_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    benchmark::AddCustomContext("cuda_driver_api", std::to_string(driver));
    benchmark::AddCustomContext("cuda_runtime", std::to_string(runtime));
    benchmark::AddCustomContext("nvcc",
                                std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__));
  });
}
