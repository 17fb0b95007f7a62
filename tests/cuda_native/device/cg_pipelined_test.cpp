// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::cg's pipelined recurrence (cg_recurrence::pipelined) and the true-residual check: every native
// form that runs it against the host (P)CG in double, on every generated family and the built-in stencil,
// float and double, the persistent kernels on several grid shapes, a kept graph rebuilt when the recurrence
// changes, and the refusals. (The portable half's twin: tests/cg_pipelined_test.cpp.)
#include "../../support/cg_reference.hpp"
#include "../../support/device_csr.hpp"
#include "../../support/errors.hpp"
#include "../../support/gpu.hpp"
#include "../../support/sparse.hpp"
#include "../../support/types.hpp"

#include <ksync/cuda/csr_matrix.hpp>
#include <ksync/cuda/device/cg.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using ksync::cg_form;

// Under compute-sanitizer (which caps the grids, support/cg_reference.hpp) the suites run fewer and smaller
// solves: racecheck slows a solve by about 200x.
bool sanitizing() {
  return !ksync::test::cg_grid_enabled(48);
}
using ksync::cg_recurrence;
using ksync::test::sparse_family;

std::vector<cg_form> native_pipelined_forms() {
  std::vector<cg_form> forms;
  for (const auto form : ksync::ids_of_half<cg_form>(ksync::strategy_half::native))
    if (ksync::runs_pipelined(form)) forms.push_back(form);
  return forms;
}

// The portable test's bound (tests/cg_pipelined_test.cpp, docs/solvers.md).
int pipelined_iteration_bound(int classic_iterations, bool is_float) {
  return is_float ? 4 + classic_iterations / 4 : 2 + classic_iterations / 10;
}

using ksync::test::device_matrix;

template <class T>
void expect_pipelined_solves(const ksync::host_csr_matrix<T, std::int32_t, std::int32_t>& host, cg_form form,
                             ksync::cg_preconditioner preconditioner, const ksync::cuda::cg_tuning& tuning = {}) {
  const bool jacobi = preconditioner == ksync::cg_preconditioner::jacobi;
  const bool is_float = sizeof(T) == sizeof(float);
  const device_matrix<T, std::int32_t, std::int32_t> matrix(host);
  const double tolerance = is_float ? 1e-4 : 1e-9;
  const int max_iterations = 4 * static_cast<int>(host.rows) + 40;
  const auto b_host = ksync::test::sparse_right_hand_side<T>(host.rows, 13u);
  const std::vector<T> zero(b_host.size(), T(0));
  const auto reference = ksync::test::host_sparse_cg(host, b_host, zero, tolerance, max_iterations, jacobi);
  ASSERT_TRUE(reference.converged);
  const ksync::cuda::device_buffer<T> b(b_host);
  ksync::cuda::device_buffer<T> x(zero);
  auto options = ksync::test::cg_options_with(tolerance, max_iterations, 4);
  options.preconditioner = preconditioner;
  options.recurrence = cg_recurrence::pipelined;
  const auto result = ksync::cuda::cg(cudaStreamPerThread, matrix.a, b.data(), x.data(), form, options, tuning);
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  EXPECT_TRUE(result.converged);
  EXPECT_GE(result.iterations, reference.iterations - 1);
  EXPECT_LE(result.iterations, reference.iterations + pipelined_iteration_bound(reference.iterations, is_float))
      << "restarts " << result.restarts;
  EXPECT_LE(result.relative_residual, tolerance);
  EXPECT_LE(ksync::test::sparse_true_residual(host, b_host, x.to_host(), jacobi), (is_float ? 20.0 : 2.0) * tolerance);
}

KSYNC_TYPED_GPU_SUITE(CgPipelinedGpu, ksync::test::floating_types);

TYPED_TEST(CgPipelinedGpu, EveryFormSolvesEveryFamily) {
  using T = TypeParam;
  for (const auto preconditioner : {ksync::cg_preconditioner::none, ksync::cg_preconditioner::jacobi}) {
    for (const auto family : ksync::test::all_sparse_families) {
      const std::vector<int> sizes = sanitizing()                          ? std::vector<int>{2, 7}
                                     : family == sparse_family::poisson_3d ? std::vector<int>{1, 2, 3, 6}
                                                                           : std::vector<int>{1, 2, 3, 7, 16};
      for (const int m : sizes) {
        const auto host = ksync::test::generate<T, std::int32_t>(family, m);
        for (const auto form : native_pipelined_forms()) {
          SCOPED_TRACE(ksync::test::to_string(family) + ", m = " + std::to_string(m) + ", form " +
                       std::string(ksync::to_string(form)) + ", " + std::string(ksync::to_string(preconditioner)));
          expect_pipelined_solves(host, form, preconditioner);
        }
      }
    }
  }
}

// One grid barrier an iteration: several rows per thread, one block, one block per multiprocessor, and a
// grid large enough that the shares are folded by the block (more than 128 blocks).
TYPED_TEST(CgPipelinedGpu, PersistentFormsOnEveryGridShape) {
  using T = TypeParam;
  const int m = sanitizing() ? 12 : 200;
  const auto host = ksync::test::generate<T, std::int32_t>(sparse_family::random_laplacian, m);
  for (const int per_thread : {1, 64}) {
    for (const int per_multiprocessor : {0, 1}) {
      SCOPED_TRACE("elements per thread " + std::to_string(per_thread) + ", blocks per SM " +
                   std::to_string(per_multiprocessor));
      const ksync::cuda::cg_tuning tuning{.elements_per_thread = per_thread,
                                          .blocks_per_multiprocessor = per_multiprocessor};
      for (const auto form : {cg_form::fused, cg_form::persistent_grid_sync, cg_form::persistent_spin_barrier})
        expect_pipelined_solves(host, form, ksync::cg_preconditioner::jacobi, tuning);
    }
  }
}

// The built-in stencil's kernels.
TYPED_TEST(CgPipelinedGpu, TheBuiltInOperatorMatchesTheHostCg) {
  using T = TypeParam;
  const bool is_float = sizeof(T) == sizeof(float);
  for (const int m : {1, 2, 3, 17, 64}) {
    if (sanitizing() && m != 2 && m != 17) continue;
    const double tolerance = ksync::test::cg_tolerance<T>();
    const int max_iterations = 4 * m * m + 40;
    const auto b_host = ksync::test::cg_right_hand_side<T>(m, 3u);
    const std::vector<T> zero(b_host.size(), T(0));
    const auto reference = ksync::test::host_cg<T>(m, b_host, zero, tolerance, max_iterations);
    ASSERT_TRUE(reference.converged);
    for (const auto form : native_pipelined_forms()) {
      SCOPED_TRACE("m = " + std::to_string(m) + ", form " + std::string(ksync::to_string(form)));
      const ksync::cuda::device_buffer<T> b(b_host);
      ksync::cuda::device_buffer<T> x(zero);
      auto options = ksync::test::cg_options_with(tolerance, max_iterations, 4);
      options.recurrence = cg_recurrence::pipelined;
      const auto result = ksync::cuda::cg(cudaStreamPerThread, m, b.data(), x.data(), form, options);
      KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
      EXPECT_TRUE(result.converged);
      EXPECT_LE(result.iterations, reference.iterations + pipelined_iteration_bound(reference.iterations, is_float));
      EXPECT_LE(ksync::test::true_relative_residual(m, b_host, x.to_host()), (is_float ? 20.0 : 2.0) * tolerance);
    }
  }
}

// Below the rounding floor: the recurrence reports what b - A x never reaches; the check restarts and
// reports the true residual.
TEST(CgTrueResidualGpu, ARecurrenceBelowTheTrueResidualIsCaught) {
  KSYNC_REQUIRE_GPU();
  const bool full = !sanitizing();
  const auto host = ksync::test::generate<double, std::int32_t>(sparse_family::variable_2d, full ? 48 : 8);
  const device_matrix<double, std::int32_t, std::int32_t> matrix(host);
  const auto b_host = ksync::test::sparse_right_hand_side<double>(host.rows, 2u);
  const ksync::cuda::device_buffer<double> b(b_host);
  for (const auto form : ksync::ids_of_half<cg_form>(ksync::strategy_half::native)) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    auto options = ksync::test::cg_options_with(1e-17, full ? 3000 : 200, 16, true);
    options.check_true_residual = true;
    ksync::cuda::device_buffer<double> x(std::vector<double>(b_host.size(), 0.0));
    const auto result = ksync::cuda::cg(cudaStreamPerThread, matrix.a, b.data(), x.data(), form, options);
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    EXPECT_FALSE(result.converged);
    EXPECT_EQ(result.iterations, options.max_iterations);
    EXPECT_GE(result.restarts, 1);
    EXPECT_GT(result.relative_residual, options.tolerance);
    ASSERT_EQ(result.residual_history.size(), static_cast<std::size_t>(result.iterations) + 1);
    EXPECT_LE(ksync::test::sparse_true_residual(host, b_host, x.to_host()), 1e-12);
  }
}

// The cuda_graph form's graph captures the recurrence: pipelined, classic, pipelined on one solver and x.
TEST(CgPipelinedGpu, AKeptGraphIsRebuiltWhenTheRecurrenceChanges) {
  KSYNC_REQUIRE_GPU();
  const auto host = ksync::test::generate<double, std::int32_t>(sparse_family::variable_2d, 12);
  const device_matrix<double, std::int32_t, std::int32_t> matrix(host);
  const auto b_host = ksync::test::sparse_right_hand_side<double>(host.rows, 21u);
  const std::vector<double> zero(b_host.size(), 0.0);
  const auto reference = ksync::test::host_sparse_cg(host, b_host, zero, 1e-10, 2000);
  const ksync::cuda::device_buffer<double> b(b_host);
  ksync::cuda::device_buffer<double> x(zero);
  ksync::cuda::cg_solver<double> solver(matrix.a);
  for (const auto recurrence : {cg_recurrence::pipelined, cg_recurrence::classic, cg_recurrence::pipelined}) {
    SCOPED_TRACE(std::string(ksync::to_string(recurrence)));
    x.copy_from(zero);
    auto options = ksync::test::cg_options_with(1e-10, 2000, 4);
    options.recurrence = recurrence;
    const auto result = solver.solve(cudaStreamPerThread, matrix.a, b.data(), x.data(), cg_form::cuda_graph, options);
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    EXPECT_TRUE(result.converged);
    EXPECT_NEAR(result.iterations, reference.iterations, 2);
    EXPECT_LE(ksync::test::sparse_true_residual(host, b_host, x.to_host()), 2e-10);
  }
}

// Refused before any work: a form of one pass per operation, a recurrence that is not one. No GPU needed.
TEST(CgPipelinedArguments, FormsOfOnePassPerOperationRefuseIt) {
  ksync::cg_options options;
  options.recurrence = cg_recurrence::pipelined;
  for (const auto form : ksync::ids_of_half<cg_form>(ksync::strategy_half::native)) {
    if (ksync::runs_pipelined(form)) continue;
    EXPECT_TRUE(ksync::test::refuses([&] { ksync::detail::check_cg_recurrence("ksync::cuda::cg", form, options); },
                                     "options.recurrence = pipelined needs one fused pass an iteration"));
  }
  options.recurrence = static_cast<cg_recurrence>(7);
  EXPECT_TRUE(ksync::test::refuses([&] { ksync::detail::check_cg_options("ksync::cuda::cg", options); },
                                   "options.recurrence = 7 is not a cg_recurrence"));
}

}  // namespace
