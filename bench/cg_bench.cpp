// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Conjugate gradients, portable forms (ksync::cg) beside the CG a Kokkos application writes today (blocking
// Kokkos::parallel_reduce dots into host scalars, alpha and beta on the host: `kokkos_host_scalars`, the
// baseline the solver targets are measured against). A solve of m x m unknowns in double, a fixed number of
// iterations, timed host to host; seconds_per_iteration is a solve over its iterations. The round trip rows
// time one blocking float sum host to host: Kokkos' own parallel_reduce into a host scalar, and ksync::reduce
// (on Kokkos::Cuda through the mailbox). The native forms and the floors are in bench/cuda_native/cg_bench.cu.
#include "kokkos_cg_steps.hpp"
#include "portable.hpp"

#include <ksync/cg.hpp>
#include <ksync/reduce.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>

namespace {

using ksync::cg_form;
using ksync::bench::Exec;
using namespace ksync::bench::kokkos_cg;  // the baseline's steps

Vector right_hand_side(const Exec& exec, std::int64_t n) {
  const Vector b(Kokkos::view_alloc(exec, "ksync::bench::b"), n);
  Kokkos::parallel_for("ksync::bench::fill", Policy(exec, 0, n), FillRightHandSide{b});
  exec.fence("ksync::bench::fill");
  return b;
}

// The baseline's A p (bench/kokkos_cg_steps.hpp has its other steps).
struct Apply {
  ksync::poisson_2d op;
  Kokkos::View<const double*> p;
  Vector ap;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { ap(i) = op(p, i); }
};

// `iterations` iterations of the textbook CG from x = 0 (r = b, p = 0, beta = 0); returns the relative
// residual of the recurrence.
double kokkos_cg(const Exec& exec, std::int64_t m, const Vector& b, const Vector& x, const Vector& r, const Vector& p,
                 const Vector& ap, int iterations) {
  const std::int64_t n = m * m;
  Kokkos::deep_copy(exec, x, 0.0);
  Kokkos::deep_copy(exec, p, 0.0);
  Kokkos::deep_copy(exec, r, b);
  double rho = 0;
  Kokkos::parallel_reduce("ksync::bench::kokkos_cg::dot", Policy(exec, 0, n), Dot{.u = r, .v = r}, rho);
  const double b_norm = std::sqrt(rho);
  double beta = 0;
  for (int k = 0; k < iterations; ++k) {
    Kokkos::parallel_for("ksync::bench::kokkos_cg::direction", Policy(exec, 0, n),
                         Direction{.r = r, .p = p, .beta = beta});
    Kokkos::parallel_for("ksync::bench::kokkos_cg::apply", Policy(exec, 0, n),
                         Apply{.op = ksync::poisson_2d{.m = m}, .p = p, .ap = ap});
    double p_ap = 0;
    Kokkos::parallel_reduce("ksync::bench::kokkos_cg::dot", Policy(exec, 0, n), Dot{.u = p, .v = ap}, p_ap);
    Kokkos::parallel_for("ksync::bench::kokkos_cg::update", Policy(exec, 0, n),
                         Update{.x = x, .r = r, .p = p, .ap = ap, .alpha = rho / p_ap});
    double rho_next = 0;
    Kokkos::parallel_reduce("ksync::bench::kokkos_cg::dot", Policy(exec, 0, n), Dot{.u = r, .v = r}, rho_next);
    beta = rho_next / rho;
    rho = rho_next;
  }
  return std::sqrt(rho) / b_norm;
}

// ||b - A x|| / ||b|| from scratch.
struct ResidualSquares {
  ksync::poisson_2d op;
  Vector b, x;
  KOKKOS_FUNCTION void operator()(std::int64_t i, double& residual, double& scale) const {
    const double r = b(i) - op(x, i);
    residual += r * r;
    scale += b(i) * b(i);
  }
};
double true_residual(const Exec& exec, std::int64_t m, const Vector& b, const Vector& x) {
  double residual = 0;
  double scale = 0;
  Kokkos::parallel_reduce("ksync::bench::true_residual", Policy(exec, 0, m * m),
                          ResidualSquares{.op = {.m = m}, .b = b, .x = x}, residual, scale);
  return std::sqrt(residual / scale);
}

void time_kokkos_cg(benchmark::State& state, int iterations) {
  const std::int64_t m = state.range(0);
  const Exec exec;
  const auto b = right_hand_side(exec, m * m);
  const Vector x("x", m * m), r("r", m * m), p("p", m * m), ap("ap", m * m);
  double recurrence = 0;
  ksync::bench::time_solves(state, [&] { return recurrence = kokkos_cg(exec, m, b, x, r, p, ap, iterations); });
  ksync::bench::check_cg_solve(state, iterations, iterations, recurrence, true_residual(exec, m, b, x));
  ksync::bench::record_cg(state, m, iterations, false);
}

void time_ksync_cg(benchmark::State& state, cg_form form, ksync::cg_recurrence recurrence, int iterations) {
  const std::int64_t m = state.range(0);
  const Exec exec;
  const auto b = right_hand_side(exec, m * m);
  const Vector x("x", m * m);
  ksync::cg_solver<Exec, double> solver(exec, m * m);
  ksync::cg_options options;
  options.tolerance = ksync::bench::cg_unreachable_tolerance;
  options.max_iterations = iterations;
  options.recurrence = recurrence;
  ksync::cg_result result;
  ksync::bench::time_solves(state, [&] {
    Kokkos::deep_copy(exec, x, 0.0);
    return result = solver.solve(exec, ksync::poisson_2d{m}, b, x, form, options);
  });
  ksync::bench::check_cg_solve(state, result.iterations, iterations, result.relative_residual,
                               true_residual(exec, m, b, x));
  ksync::bench::record_cg(state, m, iterations, ksync::runs_fused_pass(form),
                          recurrence == ksync::cg_recurrence::pipelined);
}

struct Sum {
  Kokkos::View<float*> data;
  KOKKOS_FUNCTION void operator()(std::int64_t i, float& sum) const { sum += data(i); }
};

void time_round_trip_kokkos(benchmark::State& state) {
  const Exec exec;
  const auto data = ksync::bench::make_input(exec, state.range(0));
  ksync::bench::time_round_trips(state, [&] {
    float sum = 0;
    Kokkos::parallel_reduce("ksync::bench::round_trip", Policy(exec, 0, state.range(0)), Sum{data}, sum);
    return sum;
  });
}

void time_round_trip_ksync(benchmark::State& state, ksync::reduce_strategy strategy) {
  const Exec exec;
  const auto data = ksync::bench::make_input(exec, state.range(0));
  ksync::bench::time_round_trips(state, [&] { return ksync::reduce(exec, data, ksync::reduce_op::sum, strategy); });
}

}  // namespace

void ksync::bench::register_cg_benchmarks(bool smoke) {
  const int iterations = cg_iterations(smoke);
  constexpr bool host = ksync::runs_on_host<Exec>;
  // Size by size, the baseline first and every form after it: each comparison's rows run minutes apart at
  // most, not the length of the family (on a shared host the machine drifts over a long run).
  for (const auto m : cg_grid_sizes(smoke, host)) {
    ksync::bench::add_timed("portable/cg/kokkos_host_scalars/double", m, time_kokkos_cg, iterations);
    for (const auto recurrence : {ksync::cg_recurrence::classic, ksync::cg_recurrence::pipelined}) {
      const std::string prefix =
          recurrence == ksync::cg_recurrence::pipelined ? "portable/cg/pipelined/" : "portable/cg/";
      for (const auto form : ksync::all_cg_forms) {
        if (ksync::is_native(form) || (recurrence == ksync::cg_recurrence::pipelined && !ksync::runs_pipelined(form)))
          continue;  // bench/cuda_native/cg_bench.cu times the native forms
        ksync::bench::add_timed(prefix + std::string(ksync::to_string(form)) + "/double", m, time_ksync_cg, form,
                                recurrence, iterations);
      }
    }
  }
}

void ksync::bench::register_round_trip_benchmarks(bool smoke) {
  for (const auto n : round_trip_sizes(smoke)) {
    ksync::bench::add_timed("portable/round_trip/kokkos/float", n, time_round_trip_kokkos);
    // What ksync::reduce(exec, data) runs (automatic: the native last_block on Kokkos::Cuda with the native
    // half), and the Kokkos-only fold (tuned) a ksync without the native half runs.
    ksync::bench::add_timed("portable/round_trip/ksync/float", n, time_round_trip_ksync,
                            ksync::reduce_strategy::automatic);
    ksync::bench::add_timed("portable/round_trip/ksync_tuned/float", n, time_round_trip_ksync,
                            ksync::reduce_strategy::tuned);
  }
}
