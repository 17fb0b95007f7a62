// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::csr_matrix and ksync::cuda::cg on it: every native form against the host CG in double
// (support/sparse.hpp) on every generated family, float and double, every index pair, a kept graph rebuilt
// for another matrix, and the structural checks. (The portable half's twin: tests/csr_matrix_test.cpp.)
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
#include <random>
#include <string>
#include <vector>

namespace {

using ksync::cg_form;
using ksync::test::sparse_family;

using ksync::test::device_matrix;
using ksync::test::expect_csr_solves;

KSYNC_TYPED_GPU_SUITE(CsrCgGpu, ksync::test::floating_types);

TYPED_TEST(CsrCgGpu, EveryNativeFormSolvesEveryFamily) {
  ksync::test::for_each_family_case<TypeParam>(
      ksync::test::native_forms_here(), ksync::test::solver_test_sizes,
      [](const auto& host, cg_form form, int /*m*/) { expect_csr_solves(host, form); });
}

// Jacobi PCG against the host PCG; the persistent forms on two grid shapes too (persistent_cluster's grid,
// one cluster, does not change with them).
TYPED_TEST(CsrCgGpu, JacobiPreconditionedSolvesEveryFamily) {
  using T = TypeParam;
  ksync::test::for_each_family_case<T>(ksync::test::native_forms_here(), ksync::test::preconditioned_test_sizes,
                                       [](const auto& host, cg_form form, int /*m*/) {
                                         expect_csr_solves(host, form, ksync::cg_preconditioner::jacobi);
                                       });
  const auto host = ksync::test::generate<T, std::int32_t>(sparse_family::variable_2d, 12);
  for (const auto form : ksync::test::native_forms_where(ksync::runs_in_one_launch<cg_form>))
    expect_csr_solves(host, form, ksync::cg_preconditioner::jacobi, ksync::cg_recurrence::classic,
                      {.elements_per_thread = 64, .blocks_per_multiprocessor = 1});
}

// A zero diagonal entry under Jacobi: refused at the start of every form, x left as it was.
TEST(CsrCgGpu, JacobiRefusesAZeroDiagonal) {
  KSYNC_REQUIRE_GPU();
  auto host = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 4);
  for (auto k = host.row_offsets[5]; k < host.row_offsets[6]; ++k)
    if (host.columns[k] == 5) host.values[k] = 0.0;
  const device_matrix<double, std::int32_t, std::int32_t> matrix(host);
  const auto guess = ksync::test::sparse_right_hand_side<double>(16, 8u);
  const ksync::cuda::device_buffer<double> b(ksync::test::sparse_right_hand_side<double>(16, 9u));
  ksync::cg_options options;
  options.preconditioner = ksync::cg_preconditioner::jacobi;
  for (const auto form : ksync::test::native_forms_here()) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    ksync::cuda::device_buffer<double> x(guess);
    EXPECT_TRUE(ksync::test::refuses(
        [&] { (void)ksync::cuda::cg(cudaStreamPerThread, matrix.a, b.data(), x.data(), form, options); },
        "ksync::cuda::cg: options.preconditioner = jacobi needs a positive, finite diagonal"));
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    EXPECT_EQ(x.to_host(), guess);
  }
}

TYPED_TEST(CsrCgGpu, EveryIndexPairSolves) {
  using T = TypeParam;
  const int m = 9;
  for (const auto form : ksync::test::native_forms_here()) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    expect_csr_solves(ksync::test::generate<T, std::int32_t, std::int64_t>(sparse_family::variable_2d, m), form);
    expect_csr_solves(ksync::test::generate<T, std::int64_t, std::int64_t>(sparse_family::variable_2d, m), form);
  }
}

// The fused-pass kernels walk the rows grid-stride: several rows per thread, one block, one block per SM.
TYPED_TEST(CsrCgGpu, FusedPassFormsOnEveryGridShape) {
  using T = TypeParam;
  const int m = ksync::test::cg_grid_enabled(40) ? 40 : 12;
  const auto host = ksync::test::generate<T, std::int32_t>(sparse_family::random_laplacian, m);
  ksync::test::for_each_grid_shape([&](const ksync::cuda::cg_tuning& tuning) {
    for (const auto form : ksync::test::native_forms_where(ksync::runs_fused_pass))
      expect_csr_solves(host, form, ksync::cg_preconditioner::none, ksync::cg_recurrence::classic, tuning);
  });
}

// The classic persistent kernel's held build (six blocks a multiprocessor, more than its roomy build fits with
// double on an H200; ksync/cuda/detail/cg/persistent.cuh) on a matrix, with and without Jacobi.
TYPED_TEST(CsrCgGpu, ThePersistentFormsSolveOnTheHeldBuild) {
  using T = TypeParam;
  const int m = ksync::test::cg_grid_enabled(40) ? 40 : 12;
  const auto host = ksync::test::generate<T, std::int32_t>(sparse_family::random_laplacian, m);
  for (const auto preconditioner : {ksync::cg_preconditioner::none, ksync::cg_preconditioner::jacobi}) {
    for (const auto form : ksync::test::native_forms_where(ksync::runs_in_one_launch<cg_form>))
      expect_csr_solves(host, form, preconditioner, ksync::cg_recurrence::classic,
                        {.elements_per_thread = 1, .blocks_per_multiprocessor = 6});
  }
}

// The graph forms (cuda_graph) keep their graph between solves; one solver, one x, another matrix: rebuilt.
TEST(CsrCgGpu, AKeptGraphIsRebuiltForAnotherMatrix) {
  KSYNC_REQUIRE_GPU();
  const int m = 8;
  const auto first = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, m);
  const auto second = ksync::test::generate<double, std::int32_t>(sparse_family::variable_2d, m);
  const device_matrix<double, std::int32_t, std::int32_t> a(first);
  const device_matrix<double, std::int32_t, std::int32_t> c(second);
  const auto b_host = ksync::test::sparse_right_hand_side<double>(first.rows, 5u);
  const ksync::cuda::device_buffer<double> b(b_host);
  ksync::cuda::device_buffer<double> x(std::vector<double>(b_host.size(), 0.0));
  ksync::cg_options options;
  options.tolerance = 1e-10;
  for (const auto form : ksync::test::native_forms_where(ksync::replays_a_graph<cg_form>)) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    ksync::cuda::cg_solver<double> solver(a.a);
    for (const auto* matrix : {&a, &c}) {
      x.copy_from(std::vector<double>(b_host.size(), 0.0));
      const auto result = solver.solve(cudaStreamPerThread, matrix->a, b.data(), x.data(), form, options);
      KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
      EXPECT_TRUE(result.converged);
      EXPECT_LE(ksync::test::sparse_true_residual(matrix == &a ? first : second, b_host, x.to_host()), 1e-8);
    }
  }
}

TEST(CsrCgGpu, BadStructureAndExtentsAreRefused) {
  KSYNC_REQUIRE_GPU();
  const auto good = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 4);
  auto bad = good;
  bad.row_offsets[6] = bad.row_offsets[5] - 1;
  EXPECT_TRUE(ksync::test::refuses([&] { const device_matrix<double, std::int32_t, std::int32_t> matrix(bad); },
                                   "ksync::cuda::csr_matrix: row_offsets decrease at row 5"));
  bad = good;
  bad.columns[bad.row_offsets[9] + 1] = 16;
  EXPECT_TRUE(ksync::test::refuses([&] { const device_matrix<double, std::int32_t, std::int32_t> matrix(bad); },
                                   "ksync::cuda::csr_matrix: row 9 has a column index outside [0, cols = 16)"));
  bad = good;
  bad.cols = 17;
  const device_matrix<double, std::int32_t, std::int32_t> wide(bad);
  EXPECT_EQ(ksync::test::invalid_argument_message([&] { ksync::cuda::cg_solver<double> solver(wide.a); }),
            "ksync::cuda::cg: the matrix has 16 rows and 17 columns; CG needs a square one");
  const device_matrix<double, std::int32_t, std::int32_t> square(good);
  ksync::cuda::cg_solver<double> built_in(5);
  const ksync::cuda::device_buffer<double> b(std::vector<double>(25, 1.0));
  ksync::cuda::device_buffer<double> x(std::vector<double>(25, 0.0));
  EXPECT_EQ(ksync::test::invalid_argument_message(
                [&] { (void)built_in.solve(cudaStreamPerThread, square.a, b.data(), x.data(), cg_form::fused); }),
            "ksync::cuda::cg: a.rows() = 16 but the solver was made for 25 unknowns");
  ksync::cuda::cg_solver<double> for_matrix(square.a);
  EXPECT_TRUE(
      ksync::test::refuses([&] { (void)for_matrix.solve(cudaStreamPerThread, b.data(), x.data(), cg_form::fused); },
                           "ksync::cuda::cg: this solver was made for a matrix of 16 rows"));
}

}  // namespace
