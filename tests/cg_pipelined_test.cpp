// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cg's pipelined recurrence (cg_recurrence::pipelined) and the true-residual check
// (cg_options::check_true_residual) on whatever backend Kokkos has, the native forms through the bridge on
// Kokkos::Cuda: against the host (P)CG in double, on every generated matrix family and the built-in
// operator, float and double, and the refusals.
#include "support/cg_operator.hpp"  // solve_case, expect_csr_solves
#include "support/errors.hpp"
#include "support/kokkos.hpp"
#include "support/sparse.hpp"
#include "support/types.hpp"

#include <ksync/cg.hpp>
#include <ksync/csr_matrix.hpp>

#include <gtest/gtest.h>

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
  return ksync::test::pipelined_among(ksync::test::reachable<exec_space>(ksync::all_cg_forms));
}

KSYNC_TYPED_SUITE(CgPipelined, ksync::test::floating_types);

TYPED_TEST(CgPipelined, EveryFormSolvesEveryFamily) {
  using T = TypeParam;
  for (const auto preconditioner : {ksync::cg_preconditioner::none, ksync::cg_preconditioner::jacobi}) {
    SCOPED_TRACE(std::string(ksync::to_string(preconditioner)));
    ksync::test::for_each_family_case<T>(pipelined_forms(), ksync::test::solver_test_sizes,
                                         [&](const auto& host, cg_form form, int m) {
                                           ksync::test::expect_csr_solves(host, form, 5u + static_cast<unsigned int>(m),
                                                                          preconditioner, cg_recurrence::pipelined);
                                         });
  }
}

// The built-in operator (the native forms' stencil kernels through the bridge on Kokkos::Cuda).
TYPED_TEST(CgPipelined, TheBuiltInOperatorMatchesTheHostCg) {
  using T = TypeParam;
  for (const int m : {1, 2, 3, 17, 32}) {
    const auto c = ksync::test::stencil_case<T>(m, 3u, 40);
    auto options = c.options(4);
    options.recurrence = cg_recurrence::pipelined;
    for (const auto form : pipelined_forms()) {
      SCOPED_TRACE("m = " + std::to_string(m) + ", form " + std::string(ksync::to_string(form)));
      const auto [result, x] = ksync::test::solve_case(ksync::poisson_2d{m}, c, form, options);
      ksync::test::expect_agrees(c, result, x, ksync::test::pipelined_agreement<T>(c.reference.iterations));
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

}  // namespace
