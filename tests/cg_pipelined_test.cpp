// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cg's pipelined recurrence (cg_recurrence::pipelined) and the true-residual check
// (cg_options::check_true_residual) on whatever backend Kokkos has, the native forms through the bridge on
// Kokkos::Cuda: against the host (P)CG in double, on every generated matrix family and the built-in
// operator, float and double, and the refusals.
#include "support/cg_reference.hpp"
#include "support/errors.hpp"
#include "support/kokkos.hpp"
#include "support/sparse.hpp"

#include <ksync/cg.hpp>
#include <ksync/csr_matrix.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using ksync::cg_form;
using ksync::cg_recurrence;
using exec_space = Kokkos::DefaultExecutionSpace;
using ksync::test::sparse_family;

// The reachable forms that run the pipelined recurrence.
std::vector<cg_form> pipelined_forms() {
  std::vector<cg_form> forms;
  for (const auto form : ksync::test::reachable<exec_space>(ksync::all_cg_forms))
    if (ksync::runs_pipelined(form)) forms.push_back(form);
  return forms;
}

// The bound docs/solvers.md gives: the pipelined recurrence runs the classic iterates in exact arithmetic; in
// rounding it may take a few more iterations, and a restart after the true-residual check a few more again.
int pipelined_iteration_bound(int classic_iterations, bool is_float) {
  return is_float ? 4 + classic_iterations / 4 : 2 + classic_iterations / 10;
}

template <class T, class Index, class Offset>
void expect_pipelined_solves(const ksync::host_csr_matrix<T, Index, Offset>& host, cg_form form, unsigned int seed,
                             ksync::cg_preconditioner preconditioner) {
  const bool jacobi = preconditioner == ksync::cg_preconditioner::jacobi;
  const bool is_float = sizeof(T) == sizeof(float);
  const exec_space exec;
  const ksync::csr_matrix a(exec, host);
  const double tolerance = is_float ? 1e-4 : 1e-9;
  const int max_iterations = 4 * static_cast<int>(host.rows) + 40;
  const auto b_host = ksync::test::sparse_right_hand_side<T>(host.rows, seed);
  const std::vector<T> zero(b_host.size(), T(0));
  const auto reference = ksync::test::host_sparse_cg(host, b_host, zero, tolerance, max_iterations, jacobi);
  ASSERT_TRUE(reference.converged);
  const auto b = ksync::test::to_device(b_host);
  const auto x = ksync::test::to_device(zero);
  auto options = ksync::test::cg_options_with(tolerance, max_iterations, 4);
  options.preconditioner = preconditioner;
  options.recurrence = cg_recurrence::pipelined;
  const auto result = ksync::cg(exec, a, b, x, form, options);
  exec.fence();
  EXPECT_TRUE(result.converged);
  EXPECT_GE(result.iterations, reference.iterations - 1);
  EXPECT_LE(result.iterations, reference.iterations + pipelined_iteration_bound(reference.iterations, is_float))
      << "restarts " << result.restarts;
  // Confirmed on b - A x in T: what the host recomputes in double agrees within T's rounding.
  EXPECT_LE(result.relative_residual, tolerance);
  EXPECT_LE(ksync::test::sparse_true_residual(host, b_host, ksync::test::to_host(x), jacobi),
            (is_float ? 20.0 : 2.0) * tolerance);
}

template <class T>
class CgPipelined : public ::testing::Test {};
using floating_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CgPipelined, floating_types);

TYPED_TEST(CgPipelined, EveryFormSolvesEveryFamily) {
  using T = TypeParam;
  for (const auto preconditioner : {ksync::cg_preconditioner::none, ksync::cg_preconditioner::jacobi}) {
    for (const auto family : ksync::test::all_sparse_families) {
      const std::vector<int> sizes =
          family == sparse_family::poisson_3d ? std::vector<int>{1, 2, 3, 6} : std::vector<int>{1, 2, 3, 7, 16};
      for (const int m : sizes) {
        const auto host = ksync::test::generate<T, std::int32_t>(family, m);
        for (const auto form : pipelined_forms()) {
          SCOPED_TRACE(ksync::test::to_string(family) + ", m = " + std::to_string(m) + ", form " +
                       std::string(ksync::to_string(form)) + ", " + std::string(ksync::to_string(preconditioner)));
          expect_pipelined_solves(host, form, 5u + static_cast<unsigned int>(m), preconditioner);
        }
      }
    }
  }
}

// The built-in operator (the native forms' stencil kernels through the bridge on Kokkos::Cuda).
TYPED_TEST(CgPipelined, TheBuiltInOperatorMatchesTheHostCg) {
  using T = TypeParam;
  const bool is_float = sizeof(T) == sizeof(float);
  const exec_space exec;
  for (const int m : {1, 2, 3, 17, 32}) {
    const double tolerance = ksync::test::cg_tolerance<T>();
    const int max_iterations = 4 * m * m + 40;
    const auto b_host = ksync::test::cg_right_hand_side<T>(m, 3u);
    const std::vector<T> zero(b_host.size(), T(0));
    const auto reference = ksync::test::host_cg<T>(m, b_host, zero, tolerance, max_iterations);
    ASSERT_TRUE(reference.converged);
    for (const auto form : pipelined_forms()) {
      SCOPED_TRACE("m = " + std::to_string(m) + ", form " + std::string(ksync::to_string(form)));
      const auto b = ksync::test::to_device(b_host);
      const auto x = ksync::test::to_device(zero);
      auto options = ksync::test::cg_options_with(tolerance, max_iterations, 4);
      options.recurrence = cg_recurrence::pipelined;
      const auto result = ksync::cg(exec, ksync::poisson_2d{m}, b, x, form, options);
      exec.fence();
      EXPECT_TRUE(result.converged);
      EXPECT_LE(result.iterations, reference.iterations + pipelined_iteration_bound(reference.iterations, is_float));
      EXPECT_LE(ksync::test::true_relative_residual(m, b_host, ksync::test::to_host(x)),
                (is_float ? 20.0 : 2.0) * tolerance);
    }
  }
}

// Below the rounding floor the recurrence reports a residual that b - A x never reaches. The check sees it:
// CG restarts from x and reports the true residual, converged only if b - A x met the tolerance.
TEST(CgTrueResidual, ARecurrenceBelowTheTrueResidualIsCaught) {
  const exec_space exec;
  const int m = 48;
  const auto host = ksync::test::generate<double, std::int32_t>(sparse_family::variable_2d, m);
  const ksync::csr_matrix a(exec, host);
  const auto b_host = ksync::test::sparse_right_hand_side<double>(host.rows, 2u);
  const auto b = ksync::test::to_device(b_host);
  const double tolerance = 1e-17;  // below what b - A x reaches in double
  for (const auto form : ksync::test::reachable<exec_space>(ksync::all_cg_forms)) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    auto options = ksync::test::cg_options_with(tolerance, 3000, 16, true);
    const auto x = ksync::test::to_device(std::vector<double>(b_host.size(), 0.0));
    const auto unchecked = ksync::cg(exec, a, b, x, form, options);
    exec.fence();
    const double true_unchecked = ksync::test::sparse_true_residual(host, b_host, ksync::test::to_host(x));
    EXPECT_TRUE(unchecked.converged);  // what the recurrence says
    EXPECT_GT(true_unchecked, 10 * tolerance) << "the recurrence did not drift; the test needs a smaller tolerance";
    options.check_true_residual = true;
    Kokkos::deep_copy(exec, x, 0.0);
    const auto checked = ksync::cg(exec, a, b, x, form, options);
    exec.fence();
    const double true_checked = ksync::test::sparse_true_residual(host, b_host, ksync::test::to_host(x));
    EXPECT_FALSE(checked.converged);
    EXPECT_EQ(checked.iterations, options.max_iterations);
    EXPECT_GE(checked.restarts, 1);
    EXPECT_GT(checked.relative_residual, tolerance);
    ASSERT_EQ(checked.residual_history.size(), static_cast<std::size_t>(checked.iterations) + 1);
    EXPECT_LE(true_checked, 1e-12);  // still as good as classic CG gets
  }
}

// Where the tolerance is reachable, the check costs no iteration: the true residual confirms the recurrence
// and the reported residual is the true one.
TEST(CgTrueResidual, AReachableToleranceIsConfirmedAsItIs) {
  const exec_space exec;
  const auto host = ksync::test::generate<double, std::int32_t>(sparse_family::anisotropic_2d, 20);
  const ksync::csr_matrix a(exec, host);
  const auto b_host = ksync::test::sparse_right_hand_side<double>(host.rows, 4u);
  const auto b = ksync::test::to_device(b_host);
  for (const auto form : ksync::test::reachable<exec_space>(ksync::all_cg_forms)) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    auto options = ksync::test::cg_options_with(1e-8, 2000, 8);
    const auto x = ksync::test::to_device(std::vector<double>(b_host.size(), 0.0));
    const auto plain = ksync::cg(exec, a, b, x, form, options);
    options.check_true_residual = true;
    Kokkos::deep_copy(exec, x, 0.0);
    const auto checked = ksync::cg(exec, a, b, x, form, options);
    exec.fence();
    EXPECT_TRUE(checked.converged);
    EXPECT_EQ(checked.iterations, plain.iterations);
    EXPECT_EQ(checked.restarts, 0);
    EXPECT_NEAR(checked.relative_residual, ksync::test::sparse_true_residual(host, b_host, ksync::test::to_host(x)),
                1e-3 * checked.relative_residual);
  }
}

TEST(CgPipelinedArguments, FormsOfOnePassPerOperationRefuseIt) {
  const exec_space exec;
  const ksync::poisson_2d op{4};
  const Kokkos::View<double*> b("b", 16);
  const Kokkos::View<double*> x("x", 16);
  ksync::cg_options options;
  options.recurrence = cg_recurrence::pipelined;
  for (const auto form : ksync::test::reachable<exec_space>(ksync::all_cg_forms)) {
    if (ksync::runs_pipelined(form)) continue;
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    EXPECT_TRUE(ksync::test::refuses([&] { (void)ksync::cg(exec, op, b, x, form, options); },
                                     "options.recurrence = pipelined needs one fused pass an iteration"));
  }
  options.recurrence = static_cast<cg_recurrence>(7);
  EXPECT_TRUE(ksync::test::refuses([&] { (void)ksync::cg(exec, op, b, x, cg_form::fused, options); },
                                   "options.recurrence = 7 is not a cg_recurrence"));
}

// The kept graphs capture the recurrence: one solver and one x, the recurrence switched between solves, each
// solve must converge on the true residual (a graph of the other recurrence would not).
TEST(CgPipelined, AKeptGraphIsRebuiltWhenTheRecurrenceChanges) {
  const exec_space exec;
  const auto host = ksync::test::generate<double, std::int32_t>(sparse_family::variable_2d, 12);
  const ksync::csr_matrix a(exec, host);
  const auto b_host = ksync::test::sparse_right_hand_side<double>(host.rows, 21u);
  const std::vector<double> zero(b_host.size(), 0.0);
  const auto reference = ksync::test::host_sparse_cg(host, b_host, zero, 1e-10, 2000);
  const auto b = ksync::test::to_device(b_host);
  for (const auto form : ksync::test::reachable<exec_space>(std::array{cg_form::kokkos_graph, cg_form::cuda_graph})) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    ksync::cg_solver<exec_space, double> solver(exec, host.rows);
    const Kokkos::View<double*> x("x", b_host.size());
    // Pipelined first: a pipelined graph kept for a classic solve divides by a p.Ap the classic start zeroed.
    for (const auto recurrence : {cg_recurrence::pipelined, cg_recurrence::classic, cg_recurrence::pipelined}) {
      Kokkos::deep_copy(exec, x, 0.0);
      auto options = ksync::test::cg_options_with(1e-10, 2000, 4);
      options.recurrence = recurrence;
      const auto result = solver.solve(exec, a, b, x, form, options);
      exec.fence();
      SCOPED_TRACE(std::string(ksync::to_string(recurrence)));
      EXPECT_TRUE(result.converged);
      EXPECT_EQ(result.restarts, 0);
      EXPECT_NEAR(result.iterations, reference.iterations, 2);
      EXPECT_LE(ksync::test::sparse_true_residual(host, b_host, ksync::test::to_host(x)), 2e-10);
    }
  }
}

}  // namespace
