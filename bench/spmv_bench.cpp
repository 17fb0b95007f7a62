// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::spmv (portable): y = A x in every strategy on the matrices of bench/spmv.hpp (the 2-D and 3-D Poisson
// matrices, rows of 256 entries; double, 32-bit indices), beside Kokkos Kernels' KokkosSparse::spmv on the
// same arrays where it was found. Each call is timed on one instance (time_on_instance); bytes_per_second is
// the least a call moves (bytes_floor_per_call) over its time. Every row checks y against the exact host y.
// The native strategies and cuSPARSE are in bench/cuda_native/spmv_bench.cu.
#include "portable.hpp"
#include "spmv.hpp"

#include <ksync/csr_matrix.hpp>
#include <ksync/spmv.hpp>

#include <ksync/config.hpp>
#if KSYNC_HAS_KOKKOS_KERNELS
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#endif

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ksync::bench {
namespace {

template <class V>
Kokkos::View<V*> device_copy_of(const Exec& exec, const char* label, const std::vector<V>& host) {
  const Kokkos::View<V*> device(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string(label)), host.size());
  Kokkos::deep_copy(
      exec, device,
      Kokkos::View<const V*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host.data(), host.size()));
  return device;
}

// The host problem's arrays on the device, as non-const Views (Kokkos Kernels' CrsMatrix takes those), the
// ksync matrix over them, x, y and the exact y.
struct problem {
  problem(const Exec& exec, const spmv_host_problem& host)
      : row_offsets(device_copy_of(exec, "ksync::bench::row_offsets", host.a.row_offsets)),
        columns(device_copy_of(exec, "ksync::bench::columns", host.a.columns)),
        values(device_copy_of(exec, "ksync::bench::values", host.a.values)),
        x(device_copy_of(exec, "ksync::bench::x", host.x)),
        expected(device_copy_of(exec, "ksync::bench::expected", host.y)),
        y(Kokkos::view_alloc(exec, "ksync::bench::y"), host.a.rows),
        a(exec, host.a.rows, host.a.cols, row_offsets, columns, values) {}
  Kokkos::View<std::int32_t*> row_offsets;
  Kokkos::View<std::int32_t*> columns;
  Kokkos::View<double*> values;
  Kokkos::View<double*> x;
  Kokkos::View<double*> expected;
  Kokkos::View<double*> y;
  ksync::csr_matrix<double> a;
};

// Times call(p) on one instance, then checks y and records the row.
template <class Call>
void time_spmv_call(benchmark::State& state, const spmv_case& c, Call&& call) {
  const Exec exec;
  const auto& host = c.load(state.range(0));
  problem p(exec, host);
  time_on_instance(state, exec, spmv_bytes_floor(host.a), [&] { call(exec, p); });
  check_elements(state, exec, p.y, spmv_expected_y{p.expected.data()}, "y = A x");
  record_spmv(state, host.a);
}

void time_ksync(benchmark::State& state, const spmv_case& c, ksync::spmv_strategy strategy) {
  time_spmv_call(state, c, [&](const Exec& exec, const problem& p) { ksync::spmv(exec, p.a, p.x, p.y, strategy); });
}

#if KSYNC_HAS_KOKKOS_KERNELS
// KokkosSparse::spmv (y = 1 A x + 0 y) on a CrsMatrix over the same Views, with its own choice of kernel.
void time_kokkos_kernels(benchmark::State& state, const spmv_case& c) {
  using crs = KokkosSparse::CrsMatrix<double, std::int32_t, typename Exec::device_type, void, std::int32_t>;
  std::unique_ptr<crs> matrix;
  time_spmv_call(state, c, [&](const Exec& exec, const problem& p) {
    if (!matrix)  // made in the untimed warm-up call
      matrix = std::make_unique<crs>("ksync::bench::crs", static_cast<std::int32_t>(p.a.rows()),
                                     static_cast<std::int32_t>(p.a.cols()), static_cast<std::int32_t>(p.a.nnz()),
                                     p.values, p.row_offsets, p.columns);
    KokkosSparse::spmv(exec, "N", 1.0, *matrix, p.x, 0.0, p.y);
  });
}
#endif

}  // namespace

void register_spmv_benchmarks(bool smoke) {
  for (const auto& c : spmv_cases()) {
    // Size by size: a size's rows share one assembled matrix (spmv_case::load keeps the last).
    for (const auto m : c.sizes(smoke, ksync::runs_on_host<Exec>)) {
      for (const auto strategy : ksync::ids_of_half<ksync::spmv_strategy>(ksync::strategy_half::portable))
        add_timed("portable/spmv/" + std::string(ksync::to_string(strategy)) + "/" + c.name + "/double", m, time_ksync,
                  c, strategy);
#if KSYNC_HAS_KOKKOS_KERNELS
      add_timed("kokkos_kernels/spmv/" + c.name + "/double", m, time_kokkos_kernels, c);
#endif
    }
  }
}

}  // namespace ksync::bench
