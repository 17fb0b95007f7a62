// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Entry point of the portable benchmark suites (Kokkos' default execution space).
#include "portable.hpp"

#include <string>

int main(int argc, char** argv) {
  const Kokkos::ScopeGuard kokkos(argc, argv);
  const bool smoke = ksync::bench::take_smoke_flag(argc, argv);
  ksync::bench::register_reduce_benchmarks(smoke);
  ksync::bench::register_block_benchmarks(smoke);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("kokkos_version", std::to_string(KOKKOS_VERSION));
  benchmark::AddCustomContext("kokkos_execution_space", ksync::bench::Exec::name());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
