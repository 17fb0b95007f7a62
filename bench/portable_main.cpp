// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Entry point of the portable benchmark suites (Kokkos' default execution space). Exits 1 when a row failed
// its result check (checks.hpp).
#include "portable.hpp"
#include "sparse.hpp"  // take_matrix_flag

#include <ksync/config.hpp>
#if KSYNC_HAS_KOKKOS_KERNELS
#include <KokkosKernels_config.h>
#endif

#include <sstream>
#include <string>

int main(int argc, char** argv) {
  const Kokkos::ScopeGuard kokkos(argc, argv);
  const bool smoke = ksync::bench::take_smoke_flag(argc, argv);
  const std::string matrix_file = ksync::bench::take_matrix_flag(argc, argv);  // cg_csr rows on a Matrix Market file
  ksync::bench::register_families_of_both_halves(smoke, matrix_file);
  return ksync::bench::run_registered(argc, argv, "ksync_portable_bench", [] {
    benchmark::AddCustomContext("kokkos_version", std::to_string(KOKKOS_VERSION));
    benchmark::AddCustomContext("kokkos_execution_space", ksync::bench::Exec::name());
    std::ostringstream configuration;
    Kokkos::print_configuration(configuration);
    benchmark::AddCustomContext("kokkos_configuration", configuration.str());
    benchmark::AddCustomContext("kokkos_tools_library_loaded", Kokkos::Tools::profileLibraryLoaded() ? "yes" : "no");
#if KSYNC_HAS_KOKKOS_KERNELS
    // KokkosBlas::dot calls cuBLAS when this TPL is on; KokkosBlas::sum has no cuBLAS path (cuBLAS has no
    // plain sum), so it always runs Kokkos Kernels' own kernel.
#if defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
    benchmark::AddCustomContext("kokkos_kernels_tpl_cublas", "on");
#else
  benchmark::AddCustomContext("kokkos_kernels_tpl_cublas", "off");
#endif
#else
  benchmark::AddCustomContext("kokkos_kernels", "not built");
#endif
  });
}
