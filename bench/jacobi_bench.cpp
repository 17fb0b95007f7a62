// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The persistent iterative workload, portable forms: `phases` Jacobi sweeps (ksync::jacobi) of n points per
// call with one parallel_for per sweep and as a Kokkos graph, n from 2^10 to 2^24, beside the loop Kokkos
// code writes for it (kokkos/jacobi/range_policy: one parallel_for of the per-index sweep functor a sweep). A sample is
// one call ending in a fence of the instance; seconds_per_phase is its time over the phases. The native forms are in
// bench/cuda_native/jacobi_bench.cu.
#include "portable.hpp"

#include <ksync/jacobi.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

using ksync::bench::Exec;
using ksync::bench::time_on_instance;

// form: a portable jacobi_form; nullopt: the Kokkos baseline.
void time_jacobi(benchmark::State& state, std::optional<ksync::jacobi_form> form, int phases) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const Kokkos::View<float*> u("ksync::bench::u", n);
  const Kokkos::View<float*> scratch("ksync::bench::scratch", n);
  Kokkos::deep_copy(exec, Kokkos::subview(u, 0), 1.0f);
  Kokkos::deep_copy(exec, Kokkos::subview(u, n - 1), -1.0f);
  time_on_instance(
      state, exec, 0,
      [&] {
        if (form) {
          (void)ksync::jacobi(exec, u, scratch, phases, *form);
        } else {
          for (int phase = 0; phase < phases; ++phase)
            Kokkos::parallel_for("kokkos_jacobi_sweep", Kokkos::RangePolicy<Exec>(exec, 0, n),
                                 ksync::jacobi_sweep(u, scratch, phase));
        }
      },
      ksync::bench::timing::latency);
  ksync::bench::record_phases(state, phases, n);
}

}  // namespace

void ksync::bench::register_jacobi_benchmarks(bool smoke) {
  const auto sizes = jacobi_sizes(smoke);
  const int phases = jacobi_phases(smoke);
  for (const auto n : sizes)
    ksync::bench::add_timed("kokkos/jacobi/range_policy/float", n, time_jacobi, std::nullopt, phases);
  for (const auto form : ksync::ids_of_half<ksync::jacobi_form>(ksync::strategy_half::portable)) {
    for (const auto n : sizes) {
      ksync::bench::add_timed("portable/jacobi/" + std::string(ksync::to_string(form)) + "/float", n, time_jacobi,
                              std::optional{form}, phases);
    }
  }
}
