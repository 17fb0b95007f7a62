// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::cg's pipelined recurrence (cg_recurrence::pipelined) and the true-residual check: every native
// form that runs it against the host (P)CG in double, on every generated family and the built-in stencil,
// float and double, the persistent kernels on several grid shapes, a kept graph rebuilt when the recurrence
// changes, and the refusals. (The portable half's twin: tests/cg_pipelined_test.cpp.)
#include "../../support/errors.hpp"
#include "../../support/gpu.hpp"
#include "../../support/native_cg.hpp"
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
  return ksync::test::pipelined_among(ksync::test::native_forms_here());
}

using ksync::test::device_matrix;

KSYNC_TYPED_GPU_SUITE(CgPipelinedGpu, ksync::test::floating_types);

TYPED_TEST(CgPipelinedGpu, EveryFormSolvesEveryFamily) {
  using T = TypeParam;
  for (const auto preconditioner : {ksync::cg_preconditioner::none, ksync::cg_preconditioner::jacobi}) {
    SCOPED_TRACE(std::string(ksync::to_string(preconditioner)));
    const auto sizes_of = [](sparse_family family) {
      return sanitizing() ? std::vector<int>{2, 7} : ksync::test::solver_test_sizes(family);
    };
    ksync::test::for_each_family_case<T>(native_pipelined_forms(), sizes_of, [&](const auto& host, cg_form form, int) {
      ksync::test::expect_csr_solves(host, form, preconditioner, cg_recurrence::pipelined);
    });
  }
}

// One grid barrier an iteration: several rows per thread, one block, one block per multiprocessor, and a
// grid large enough that the shares are folded by the block (more than 128 blocks).
TYPED_TEST(CgPipelinedGpu, FusedPassFormsOnEveryGridShape) {
  using T = TypeParam;
  const int m = sanitizing() ? 12 : 200;
  const auto host = ksync::test::generate<T, std::int32_t>(sparse_family::random_laplacian, m);
  ksync::test::for_each_grid_shape([&](const ksync::cuda::cg_tuning& tuning) {
    for (const auto form : ksync::test::native_forms_where(ksync::runs_fused_pass))
      ksync::test::expect_csr_solves(host, form, ksync::cg_preconditioner::jacobi, cg_recurrence::pipelined, tuning);
  });
}

// The built-in stencil's kernels.
TYPED_TEST(CgPipelinedGpu, TheBuiltInOperatorMatchesTheHostCg) {
  using T = TypeParam;
  for (const int m : {1, 2, 3, 17, 64}) {
    if (sanitizing() && m != 2 && m != 17) continue;
    const auto c = ksync::test::stencil_case<T>(m, 3u, 40);
    auto options = c.options(4);
    options.recurrence = cg_recurrence::pipelined;
    for (const auto form : native_pipelined_forms()) {
      SCOPED_TRACE("m = " + std::to_string(m) + ", form " + std::string(ksync::to_string(form)));
      const auto [result, x] = ksync::test::solve_case(m, c, form, options);
      ksync::test::expect_agrees(c, result, x, ksync::test::pipelined_agreement<T>(c.reference.iterations));
    }
  }
}

// persistent_cluster with the pipelined recurrence's vectors in the cluster's shared memory (cluster_pipelined.cuh)
// on every cluster size: a random graph Laplacian (most of a row's entries live in other blocks) with and without
// Jacobi, and the built-in stencil on 9 unknowns (blocks past the ninth hold no rows) and on 1,600 (289 under
// the sanitizers).
TYPED_TEST(CgPipelinedGpu, TheClusterKeepsItsVectorsInSharedMemory) {
  using T = TypeParam;
  KSYNC_REQUIRE_CLUSTERS();
  const auto host = ksync::test::generate<T, std::int32_t>(sparse_family::random_laplacian, sanitizing() ? 12 : 24);
  for (const int blocks : {1, 2, 4, 8, 16}) {
    SCOPED_TRACE("cluster_blocks = " + std::to_string(blocks));
    const ksync::cuda::cg_tuning tuning{.cluster_blocks = blocks,
                                        .cluster_vectors = ksync::cuda::cg_cluster_vectors::shared_memory};
    ksync::test::expect_runs_unless_cluster_16_is_refused(blocks, [&] {
      for (const auto preconditioner : {ksync::cg_preconditioner::none, ksync::cg_preconditioner::jacobi})
        ksync::test::expect_csr_solves(host, cg_form::persistent_cluster, preconditioner, cg_recurrence::pipelined,
                                       tuning);
      for (const int m : {3, sanitizing() ? 17 : 40}) {
        SCOPED_TRACE("the stencil, m = " + std::to_string(m));
        const auto c = ksync::test::stencil_case<T>(m, 5u, 40);
        auto options = c.options(4);
        options.recurrence = cg_recurrence::pipelined;
        const auto [result, x] = ksync::test::solve_case(m, c, cg_form::persistent_cluster, options, tuning);
        ksync::test::expect_agrees(c, result, x, ksync::test::pipelined_agreement<T>(c.reference.iterations));
      }
    });
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
  for (const auto form : ksync::test::native_forms_here()) {
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

// The graph forms' graph (cuda_graph's) captures the recurrence: pipelined, classic, pipelined on one solver.
TEST(CgPipelinedGpu, AKeptGraphIsRebuiltWhenTheRecurrenceChanges) {
  KSYNC_REQUIRE_GPU();
  const auto host = ksync::test::generate<double, std::int32_t>(sparse_family::variable_2d, 12);
  const device_matrix<double, std::int32_t, std::int32_t> matrix(host);
  const auto b_host = ksync::test::sparse_right_hand_side<double>(host.rows, 21u);
  const std::vector<double> zero(b_host.size(), 0.0);
  const auto reference = ksync::test::host_sparse_cg(host, b_host, zero, 1e-10, 2000);
  const ksync::cuda::device_buffer<double> b(b_host);
  ksync::cuda::device_buffer<double> x(zero);
  for (const auto form : ksync::test::native_forms_where(ksync::replays_a_graph<cg_form>)) {
    ksync::cuda::cg_solver<double> solver(matrix.a);
    for (const auto recurrence : {cg_recurrence::pipelined, cg_recurrence::classic, cg_recurrence::pipelined}) {
      SCOPED_TRACE(std::string(ksync::to_string(form)) + ", " + std::string(ksync::to_string(recurrence)));
      x.copy_from(zero);
      auto options = ksync::test::cg_options_with(1e-10, 2000, 4);
      options.recurrence = recurrence;
      const auto result = solver.solve(cudaStreamPerThread, matrix.a, b.data(), x.data(), form, options);
      KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
      EXPECT_TRUE(result.converged);
      EXPECT_NEAR(result.iterations, reference.iterations, 2);
      EXPECT_LE(ksync::test::sparse_true_residual(host, b_host, x.to_host()), 2e-10);
    }
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
