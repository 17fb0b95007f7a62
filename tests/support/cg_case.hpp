// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One solve both halves' CG tests hold a form to: the right-hand side, the start, the limits, the host's
// answer (support/cg_reference.hpp) and how to measure a solution's true residual; and how closely a form
// must follow that answer, by recurrence. The tests make a case, solve it their own way, and check it here.
#pragma once

#include "cg_reference.hpp"
#include "sparse.hpp"

#include <ksync/cg_types.hpp>
#include <ksync/csr.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ksync::test {

template <class T>
struct cg_case {
  std::vector<T> b;
  std::vector<T> x0;
  double tolerance = 0;
  int max_iterations = 0;
  ksync::cg_preconditioner preconditioner = ksync::cg_preconditioner::none;
  cg_reference_result reference;
  std::function<double(const std::vector<T>&)> true_residual;  // ||b - A x|| / ||b|| in double

  [[nodiscard]] ksync::cg_options options(int check_every, bool record_history = false) const {
    auto options = cg_options_with(tolerance, max_iterations, check_every, record_history);
    options.preconditioner = preconditioner;
    return options;
  }
};

// The m x m Poisson stencil (plus shift I) from x0 (empty: zero), 4 m^2 + extra_iterations allowed.
template <class T>
cg_case<T> stencil_case(int m, unsigned int seed, int extra_iterations, std::vector<T> x0 = {}, double shift = 0.0) {
  cg_case<T> c;
  c.b = cg_right_hand_side<T>(m, seed);
  c.x0 = x0.empty() ? std::vector<T>(c.b.size(), T(0)) : std::move(x0);
  c.tolerance = cg_tolerance<T>();
  c.max_iterations = 4 * m * m + extra_iterations;
  c.reference = host_cg<T>(m, c.b, c.x0, c.tolerance, c.max_iterations, shift);
  c.true_residual = [m, b = c.b, shift](const std::vector<T>& x) { return true_relative_residual(m, b, x, shift); };
  return c;
}

// An assembled matrix from zero, 4 rows + extra_iterations allowed; with Jacobi, PCG with M = diag(A) and
// every norm in M^-1.
template <class T, class Index, class Offset>
cg_case<T> sparse_case(const host_csr_matrix<T, Index, Offset>& a, unsigned int seed, int extra_iterations,
                       ksync::cg_preconditioner preconditioner = ksync::cg_preconditioner::none) {
  const bool jacobi = preconditioner == ksync::cg_preconditioner::jacobi;
  cg_case<T> c;
  c.preconditioner = preconditioner;
  c.b = sparse_right_hand_side<T>(a.rows, seed);
  c.x0.assign(c.b.size(), T(0));
  c.tolerance = cg_tolerance<T>();
  c.max_iterations = 4 * static_cast<int>(a.rows) + extra_iterations;
  c.reference = host_sparse_cg(a, c.b, c.x0, c.tolerance, c.max_iterations, jacobi);
  c.true_residual = [a, b = c.b, jacobi](const std::vector<T>& x) { return sparse_true_residual(a, b, x, jacobi); };
  return c;
}

// The forms of `forms` that run the pipelined recurrence (ksync::runs_pipelined).
template <class Forms>
std::vector<ksync::cg_form> pipelined_among(const Forms& forms) {
  std::vector<ksync::cg_form> pipelined;
  for (const auto form : forms)
    if (ksync::runs_pipelined(form)) pipelined.push_back(form);
  return pipelined;
}

// Runs check(host, form) for every generated family at each of sizes_of(family) and every form of `forms`,
// under a trace that names them. Sizes a sanitizer run cannot afford (cg_grid_enabled) are left out.
template <class T, class Forms, class Sizes, class Check>
void for_each_family_case(const Forms& forms, const Sizes& sizes_of, Check&& check) {
  for (const auto family : all_sparse_families) {
    for (const int m : sizes_of(family)) {
      if (!cg_grid_enabled(m)) continue;
      const auto host = generate<T, std::int32_t>(family, m);
      for (const auto form : forms) {
        SCOPED_TRACE(to_string(family) + ", m = " + std::to_string(m) + ", form " +
                     std::string(ksync::to_string(form)));
        check(host, form, m);
      }
    }
  }
}

// How closely a solve must follow the reference: the iterations it may stop before or after it, and how far
// the true residual of its x may be above the tolerance (the recurrence drifts from it by rounding).
struct cg_agreement {
  int fewer_iterations;
  int more_iterations;
  double residual_factor;
};

// Classic CG on the stencil: within one iteration; a few times the tolerance.
template <class T>
cg_agreement classic_stencil_agreement() {
  return {.fewer_iterations = 1, .more_iterations = 1, .residual_factor = sizeof(T) == sizeof(float) ? 30.0 : 10.0};
}

// Classic CG on the generated families: in float a few iterations either way on the worse-conditioned ones.
template <class T>
cg_agreement classic_sparse_agreement(int reference_iterations) {
  if (sizeof(T) == sizeof(float))
    return {.fewer_iterations = 3 + reference_iterations / 10,
            .more_iterations = 3 + reference_iterations / 10,
            .residual_factor = 100.0};
  return {.fewer_iterations = 1, .more_iterations = 1, .residual_factor = 10.0};
}

// The pipelined recurrence (docs/solvers.md): its rounding costs iterations, and a restart after the true
// residual check costs more; the reported residual is the true one, confirmed in T.
template <class T>
cg_agreement pipelined_agreement(int reference_iterations) {
  if (sizeof(T) == sizeof(float))
    return {.fewer_iterations = 1, .more_iterations = 4 + reference_iterations / 4, .residual_factor = 20.0};
  return {.fewer_iterations = 1, .more_iterations = 2 + reference_iterations / 10, .residual_factor = 2.0};
}

// The agreement of a solve on the generated families by recurrence.
template <class T>
cg_agreement sparse_agreement(ksync::cg_recurrence recurrence, int reference_iterations) {
  return recurrence == ksync::cg_recurrence::pipelined ? pipelined_agreement<T>(reference_iterations)
                                                       : classic_sparse_agreement<T>(reference_iterations);
}

template <class T>
void expect_agrees(const cg_case<T>& c, const ksync::cg_result& result, const std::vector<T>& x,
                   const cg_agreement& bound) {
  ASSERT_TRUE(c.reference.converged);
  EXPECT_TRUE(result.converged);
  EXPECT_GE(result.iterations, c.reference.iterations - bound.fewer_iterations);
  EXPECT_LE(result.iterations, c.reference.iterations + bound.more_iterations) << "restarts " << result.restarts;
  EXPECT_LE(result.relative_residual, c.tolerance);
  EXPECT_LE(c.true_residual(x), bound.residual_factor * c.tolerance);
}

}  // namespace ksync::test
