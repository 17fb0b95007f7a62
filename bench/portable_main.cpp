// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Entry point of the portable benchmark suites (Kokkos' default execution space).
#include "portable.hpp"

#include <ksync/config.hpp>
#if KSYNC_HAS_KOKKOS_KERNELS
#include <KokkosKernels_config.h>
#endif

#include <string>

int main(int argc, char** argv) {
  const Kokkos::ScopeGuard kokkos(argc, argv);
  const bool smoke = ksync::bench::take_smoke_flag(argc, argv);
  ksync::bench::register_reduce_benchmarks(smoke);
  ksync::bench::register_block_benchmarks(smoke);
  ksync::bench::register_barrier_benchmarks(smoke);
  ksync::bench::register_iteration_benchmarks(smoke);
  ksync::bench::register_pipeline_benchmarks(smoke);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("kokkos_version", std::to_string(KOKKOS_VERSION));
  benchmark::AddCustomContext("kokkos_execution_space", ksync::bench::Exec::name());
#if KSYNC_HAS_KOKKOS_KERNELS
  // KokkosBlas::dot calls cuBLAS when this TPL is on; KokkosBlas::sum has no cuBLAS path (cuBLAS has no
  // plain sum), so it always runs Kokkos Kernels' own kernel.
#if defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
  benchmark::AddCustomContext("kokkos_kernels_tpl_cublas", "on");
#else
  benchmark::AddCustomContext("kokkos_kernels_tpl_cublas", "off");
#endif
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
