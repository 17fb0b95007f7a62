// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Conjugate gradients on assembled sparse matrices (CSR, double, 32-bit indices; bench/sparse.hpp): every
// portable form of ksync::cg on a ksync::csr_matrix, beside the CG a Kokkos application writes for a CSR
// matrix (a parallel_for over the rows for A p, blocking parallel_reduce dots into host scalars:
// `kokkos_host_scalars`), and the Jacobi-preconditioned CG such an application writes (the same, plus the
// inverse diagonal once a solve and z = D^-1 r an iteration: `jacobi/kokkos_host_scalars`), which the Jacobi
// forms are measured against. Where Kokkos Kernels is found, the CG its users write too
// (`kokkos_kernels_host_scalars`: KokkosSparse::spmv, KokkosBlas::dot into host scalars, KokkosBlas::axpby).
// Timed as the stencil rows (cg_bench.cpp). The native forms and the cuSPARSE + cuBLAS anchor are in
// bench/cuda_native/cg_csr_bench.cu.
#include "kokkos_cg_steps.hpp"
#include "portable.hpp"
#include "sparse.hpp"

#include <ksync/cg.hpp>
#include <ksync/csr_matrix.hpp>

#if KSYNC_HAS_KOKKOS_KERNELS
#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#endif

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

namespace {

using ksync::cg_form;
using ksync::bench::Exec;
using namespace ksync::bench::kokkos_cg;  // the baseline's steps
using Matrix = ksync::csr_matrix<double>;

// The baseline's A p, as a Kokkos code writes it for its own CSR matrix (bench/kokkos_cg_steps.hpp has the
// other steps).
struct Apply {
  Kokkos::View<const int*> row_offsets, columns;
  Kokkos::View<const double*> values, p;
  Vector ap;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    double sum = 0;
    for (int k = row_offsets(i); k < row_offsets(i + 1); ++k)
      sum += values(k) * p(columns(k));
    ap(i) = sum;
  }
};
// The preconditioned baseline's two extra steps: D^-1 once a solve, z = D^-1 r an iteration.
struct InverseDiagonal {
  Matrix a;
  Vector inverse;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { inverse(i) = 1.0 / a.diagonal(i); }
};
struct Precondition {
  Vector inverse, r, z;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { z(i) = inverse(i) * r(i); }
};
struct ResidualSquares {
  Matrix a;
  Vector b, x;
  KOKKOS_FUNCTION void operator()(std::int64_t i, double& residual, double& scale) const {
    const double r = b(i) - a(x, i);
    residual += r * r;
    scale += b(i) * b(i);
  }
};

struct problem {
  problem(const Exec& exec, const ksync::host_csr_matrix<double, std::int32_t>& host)
      : a(exec, host),
        b(Kokkos::view_alloc(exec, "ksync::bench::b"), host.rows),
        x(Kokkos::view_alloc(exec, "ksync::bench::x"), host.rows) {
    Kokkos::parallel_for("ksync::bench::fill", Policy(exec, 0, host.rows), FillRightHandSide{.b = b});
  }
  Matrix a;
  Vector b, x;
  [[nodiscard]] std::int64_t n() const { return a.rows(); }
  [[nodiscard]] double true_residual(const Exec& exec) const {
    double residual = 0;
    double scale = 0;
    Kokkos::parallel_reduce("ksync::bench::true_residual", Policy(exec, 0, n()),
                            ResidualSquares{.a = a, .b = b, .x = x}, residual, scale);
    return std::sqrt(residual / scale);
  }
};

void record(benchmark::State& state, const ksync::host_csr_matrix<double, std::int32_t>& host, int iterations,
            bool fused, const ksync::bench::cg_csr_variant& variant = {}) {
  ksync::bench::record_cg(state, state.range(0), iterations, fused);
  state.counters["unknowns"] = static_cast<double>(host.rows);
  state.counters["bytes_per_iteration"] =
      ksync::bench::cg_csr_bytes_per_iteration(host, fused, variant.jacobi(), variant.pipelined());
}

// The classic CG loop an application writes, its scalars on the host. `steps` enqueues the vector operations:
// restart() x = 0, p = 0, r = b, z = M^-1 r; rz() r . z, blocking; direction(beta) p = z + beta p; apply()
// A p; pap() p . A p, blocking; update(alpha) x += alpha p, r -= alpha A p, z = M^-1 r. Returns the iterations
// run and sets `recurrence` to sqrt(r . z / its value at the start).
template <class Steps>
int host_scalar_cg(const Steps& steps, int iterations, double tolerance, double& recurrence) {
  steps.restart();
  double rho = steps.rz();
  const double rho_start = rho;
  double beta = 0;
  int ran = 0;
  for (; ran < iterations && std::sqrt(rho / rho_start) > tolerance; ++ran) {
    steps.direction(beta);
    steps.apply();
    steps.update(rho / steps.pap());
    const double rho_next = steps.rz();
    beta = rho_next / rho;
    rho = rho_next;
  }
  recurrence = std::sqrt(rho / rho_start);
  return ran;
}

// The steps of the CG (jacobi: the Jacobi PCG) a Kokkos application writes; `z` is `r` itself without a
// preconditioner.
struct kokkos_steps {
  kokkos_steps(Exec on, const problem& solved, bool jacobi)
      : exec(std::move(on)),
        p(solved),
        r("r", solved.n()),
        d("p", solved.n()),
        ad("ap", solved.n()),
        z(jacobi ? Vector("z", solved.n()) : r),
        inverse(jacobi ? Vector("inverse_diagonal", solved.n()) : Vector()) {}
  Exec exec;
  const problem& p;
  Vector r, d, ad, z, inverse;

  [[nodiscard]] Policy all() const { return {exec, 0, p.n()}; }
  void precondition() const {
    if (inverse.data() != nullptr)
      Kokkos::parallel_for("ksync::bench::kokkos_cg::precondition", all(),
                           Precondition{.inverse = inverse, .r = r, .z = z});
  }
  void restart() const {
    Kokkos::deep_copy(exec, p.x, 0.0);
    Kokkos::deep_copy(exec, d, 0.0);
    Kokkos::deep_copy(exec, r, p.b);
    if (inverse.data() != nullptr)
      Kokkos::parallel_for("ksync::bench::kokkos_cg::inverse_diagonal", all(),
                           InverseDiagonal{.a = p.a, .inverse = inverse});
    precondition();
  }
  [[nodiscard]] double dot(const Vector& u, const Vector& v) const {
    double sum = 0;
    Kokkos::parallel_reduce("ksync::bench::kokkos_cg::dot", all(), Dot{.u = u, .v = v}, sum);
    return sum;
  }
  [[nodiscard]] double rz() const { return dot(r, z); }
  [[nodiscard]] double pap() const { return dot(d, ad); }
  void direction(double beta) const {
    Kokkos::parallel_for("ksync::bench::kokkos_cg::direction", all(), Direction{.r = z, .p = d, .beta = beta});
  }
  void apply() const {
    Kokkos::parallel_for(
        "ksync::bench::kokkos_cg::apply", all(),
        Apply{.row_offsets = p.a.row_offsets(), .columns = p.a.columns(), .values = p.a.values(), .p = d, .ap = ad});
  }
  void update(double alpha) const {
    Kokkos::parallel_for("ksync::bench::kokkos_cg::update", all(),
                         Update{.x = p.x, .r = r, .p = d, .ap = ad, .alpha = alpha});
    precondition();
  }
};

#if KSYNC_HAS_KOKKOS_KERNELS
// The steps of the CG a Kokkos Kernels user writes for a CrsMatrix: every step a Kokkos Kernels call on exec,
// each dot a blocking reduction into a host scalar.
struct kokkos_kernels_steps {
  using crs = KokkosSparse::CrsMatrix<double, int, Exec::device_type, void, int>;
  kokkos_kernels_steps(Exec on, const problem& solved)
      : exec(std::move(on)),
        p(solved),
        a(copy_of(exec, solved.a)),
        r("r", solved.n()),
        d("p", solved.n()),
        ad("ap", solved.n()) {}
  Exec exec;
  const problem& p;
  crs a;
  Vector r, d, ad;

  static crs copy_of(const Exec& exec, const Matrix& matrix) {
    const typename crs::row_map_type::non_const_type row_map("ksync::bench::row_map", matrix.rows() + 1);
    const typename crs::index_type::non_const_type entries("ksync::bench::entries", matrix.nnz());
    const typename crs::values_type::non_const_type values("ksync::bench::values", matrix.nnz());
    Kokkos::deep_copy(exec, row_map, matrix.row_offsets());
    Kokkos::deep_copy(exec, entries, matrix.columns());
    Kokkos::deep_copy(exec, values, matrix.values());
    return {"ksync::bench::crs",
            static_cast<int>(matrix.rows()),
            static_cast<int>(matrix.cols()),
            static_cast<int>(matrix.nnz()),
            values,
            row_map,
            entries};
  }
  void restart() const {
    Kokkos::deep_copy(exec, p.x, 0.0);
    Kokkos::deep_copy(exec, d, 0.0);
    Kokkos::deep_copy(exec, r, p.b);
  }
  [[nodiscard]] double rz() const { return KokkosBlas::dot(exec, r, r); }
  [[nodiscard]] double pap() const { return KokkosBlas::dot(exec, d, ad); }
  void direction(double beta) const { KokkosBlas::axpby(exec, 1.0, r, beta, d); }
  void apply() const { KokkosSparse::spmv(exec, "N", 1.0, a, d, 0.0, ad); }
  void update(double alpha) const {
    KokkosBlas::axpby(exec, alpha, d, 1.0, p.x);
    KokkosBlas::axpby(exec, -alpha, ad, 1.0, r);
  }
};
#endif

// A baseline CG (Steps: kokkos_steps or kokkos_kernels_steps, made from exec, the problem and `how`).
template <class Steps, class... How>
void time_baseline_cg(benchmark::State& state, const ksync::bench::csr_case& matrix, int iterations,
                      const ksync::bench::cg_csr_variant& variant, How... how) {
  const Exec exec;
  const auto& host = matrix.load(state.range(0));
  const problem p(exec, host);
  const Steps steps(exec, p, how...);
  double recurrence = 0;
  int ran = 0;
  ksync::bench::time_solves(state, [&] {
    ran = host_scalar_cg(steps, iterations, matrix.tolerance(), recurrence);
    return recurrence;
  });
  ksync::bench::check_cg_solve(state, ran, matrix.file.empty() ? iterations : ran, recurrence, p.true_residual(exec));
  record(state, host, ran, false, variant);
}

// The CG (jacobi: the Jacobi PCG) a Kokkos application writes.
void time_kokkos_cg(benchmark::State& state, const ksync::bench::csr_case& matrix, bool jacobi, int iterations) {
  time_baseline_cg<kokkos_steps>(
      state, matrix, iterations,
      {.preconditioner = jacobi ? ksync::cg_preconditioner::jacobi : ksync::cg_preconditioner::none}, jacobi);
}

#if KSYNC_HAS_KOKKOS_KERNELS
void time_kokkos_kernels_cg(benchmark::State& state, const ksync::bench::csr_case& matrix, int iterations) {
  time_baseline_cg<kokkos_kernels_steps>(state, matrix, iterations, {});
}
#endif

void time_ksync_cg(benchmark::State& state, const ksync::bench::csr_case& matrix,
                   const ksync::bench::cg_csr_variant& variant, cg_form form, int iterations) {
  const Exec exec;
  const auto& host = matrix.load(state.range(0));
  problem p(exec, host);
  ksync::cg_solver<Exec, double> solver(exec, p.n());
  const ksync::cg_options options = matrix.options(iterations, variant.preconditioner, variant.recurrence);
  ksync::cg_result result;
  ksync::bench::time_solves(state, [&] {
    Kokkos::deep_copy(exec, p.x, 0.0);
    return result = solver.solve(exec, p.a, p.b, p.x, form, options);
  });
  ksync::bench::check_cg_solve(state, result.iterations, matrix.file.empty() ? iterations : result.iterations,
                               result.relative_residual, p.true_residual(exec));
  record(state, host, result.iterations, ksync::runs_fused_pass(form), variant);
}

}  // namespace

void ksync::bench::register_cg_csr_benchmarks(bool smoke, const std::string& matrix_file) {
  const int iterations = cg_iterations(smoke);
  constexpr bool host = ksync::runs_on_host<Exec>;
  for (const auto& matrix_case : cg_csr_cases(matrix_file)) {
    const std::string matrix = matrix_case.name();
    // Size by size, the baseline first (as bench/cg_bench.cpp): each comparison's rows run close together.
    for (const auto m : cg_csr_sizes(matrix_case, smoke, host)) {
      add_timed("portable/cg_csr/" + matrix + "/kokkos_host_scalars/double", m, time_kokkos_cg, matrix_case, false,
                iterations);
#if KSYNC_HAS_KOKKOS_KERNELS
      add_timed("portable/cg_csr/" + matrix + "/kokkos_kernels_host_scalars/double", m, time_kokkos_kernels_cg,
                matrix_case, iterations);
#endif
      for (const auto& variant : cg_csr_variants(matrix_case)) {
        // The Jacobi forms' own baseline: the Jacobi PCG as a Kokkos application writes it.
        if (variant.jacobi() && !variant.pipelined())
          add_timed("portable/cg_csr/" + cg_csr_prefix(matrix_case, variant) + "kokkos_host_scalars/double", m,
                    time_kokkos_cg, matrix_case, true, iterations);
        for (const auto form : ksync::all_cg_forms) {
          // bench/cuda_native/cg_csr_bench.cu times the native forms
          if (ksync::is_native(form) || !variant.runs(form)) continue;
          add_timed("portable/cg_csr/" + cg_csr_prefix(matrix_case, variant) + std::string(ksync::to_string(form)) +
                        "/double",
                    m, time_ksync_cg, matrix_case, variant, form, iterations);
        }
      }
    }
  }
}
