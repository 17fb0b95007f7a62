// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::csr_matrix and ksync::cuda::cg on it: every native form against the host CG in double
// (support/sparse.hpp) on every generated family, float and double, every index pair, a kept graph rebuilt
// for another matrix, and the structural checks. (The portable half's twin: tests/csr_matrix_test.cpp.)
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
#include <random>
#include <string>
#include <vector>

namespace {

using ksync::cg_form;
using ksync::test::sparse_family;

const std::vector<cg_form> native_forms = ksync::ids_of_half<cg_form>(ksync::strategy_half::native);

using ksync::test::device_matrix;

template <class T, class Index, class Offset>
void expect_solves(const ksync::host_csr_matrix<T, Index, Offset>& host, cg_form form,
                   const ksync::cuda::cg_tuning& tuning = {},
                   ksync::cg_preconditioner preconditioner = ksync::cg_preconditioner::none) {
  const bool jacobi = preconditioner == ksync::cg_preconditioner::jacobi;
  const device_matrix<T, Index, Offset> matrix(host);
  const double tolerance = sizeof(T) == sizeof(float) ? 1e-4 : 1e-9;
  const int max_iterations = 4 * static_cast<int>(host.rows) + 20;
  const auto b_host = ksync::test::sparse_right_hand_side<T>(host.rows, 13u);
  const std::vector<T> zero(b_host.size(), T(0));
  const auto reference = ksync::test::host_sparse_cg(host, b_host, zero, tolerance, max_iterations, jacobi);
  ASSERT_TRUE(reference.converged);
  const ksync::cuda::device_buffer<T> b(b_host);
  ksync::cuda::device_buffer<T> x(zero);
  ksync::cg_options options;
  options.tolerance = tolerance;
  options.max_iterations = max_iterations;
  options.check_every = 4;
  options.preconditioner = preconditioner;
  const auto result = ksync::cuda::cg(cudaStreamPerThread, matrix.a, b.data(), x.data(), form, options, tuning);
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  EXPECT_TRUE(result.converged);
  // As in the portable test: a few iterations' drift in float on the worse-conditioned families.
  EXPECT_NEAR(result.iterations, reference.iterations, sizeof(T) == sizeof(float) ? 3 + reference.iterations / 10 : 1);
  EXPECT_LE(ksync::test::sparse_true_residual(host, b_host, x.to_host(), jacobi),
            (sizeof(T) == sizeof(float) ? 100.0 : 10.0) * tolerance);
}

KSYNC_TYPED_GPU_SUITE(CsrCgGpu, ksync::test::floating_types);

TYPED_TEST(CsrCgGpu, EveryNativeFormSolvesEveryFamily) {
  using T = TypeParam;
  for (const auto family : ksync::test::all_sparse_families) {
    const std::vector<int> sizes =
        family == sparse_family::poisson_3d ? std::vector<int>{1, 2, 3, 6} : std::vector<int>{1, 2, 3, 7, 16};
    for (const int m : sizes) {
      if (!ksync::test::cg_grid_enabled(m)) continue;
      const auto host = ksync::test::generate<T, std::int32_t>(family, m);
      for (const auto form : native_forms) {
        SCOPED_TRACE(ksync::test::to_string(family) + ", m = " + std::to_string(m) + ", form " +
                     std::string(ksync::to_string(form)));
        expect_solves(host, form);
      }
    }
  }
}

// Jacobi PCG against the host PCG; the persistent forms on two grid shapes too.
TYPED_TEST(CsrCgGpu, JacobiPreconditionedSolvesEveryFamily) {
  using T = TypeParam;
  for (const auto family : ksync::test::all_sparse_families) {
    for (const int m : {2, 7, 16}) {
      if (!ksync::test::cg_grid_enabled(m) || (family == sparse_family::poisson_3d && m == 16)) continue;
      const auto host = ksync::test::generate<T, std::int32_t>(family, m);
      for (const auto form : native_forms) {
        SCOPED_TRACE(ksync::test::to_string(family) + ", m = " + std::to_string(m) + ", form " +
                     std::string(ksync::to_string(form)));
        expect_solves(host, form, {}, ksync::cg_preconditioner::jacobi);
      }
    }
  }
  const auto host = ksync::test::generate<T, std::int32_t>(sparse_family::variable_2d, 12);
  for (const auto form : {cg_form::persistent_grid_sync, cg_form::persistent_spin_barrier})
    expect_solves(host, form, {.elements_per_thread = 64, .blocks_per_multiprocessor = 1},
                  ksync::cg_preconditioner::jacobi);
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
  for (const auto form : native_forms) {
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
  for (const auto form : native_forms) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    expect_solves(ksync::test::generate<T, std::int32_t, std::int64_t>(sparse_family::variable_2d, m), form);
    expect_solves(ksync::test::generate<T, std::int64_t, std::int64_t>(sparse_family::variable_2d, m), form);
  }
}

// The persistent kernels walk the rows grid-stride: several rows per thread, one block, one block per SM.
TYPED_TEST(CsrCgGpu, PersistentFormsOnEveryGridShape) {
  using T = TypeParam;
  const int m = ksync::test::cg_grid_enabled(40) ? 40 : 12;
  const auto host = ksync::test::generate<T, std::int32_t>(sparse_family::random_laplacian, m);
  for (const int per_thread : {1, 64}) {
    for (const int per_multiprocessor : {0, 1}) {
      SCOPED_TRACE("elements per thread " + std::to_string(per_thread) + ", blocks per SM " +
                   std::to_string(per_multiprocessor));
      const ksync::cuda::cg_tuning tuning{.elements_per_thread = per_thread,
                                          .blocks_per_multiprocessor = per_multiprocessor};
      for (const auto form : {cg_form::fused, cg_form::persistent_grid_sync, cg_form::persistent_spin_barrier})
        expect_solves(host, form, tuning);
    }
  }
}

// The cuda_graph form keeps its graph between solves; one solver, one x, another matrix: rebuilt.
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
  ksync::cuda::cg_solver<double> solver(a.a);
  ksync::cg_options options;
  options.tolerance = 1e-10;
  for (const auto* matrix : {&a, &c}) {
    x.copy_from(std::vector<double>(b_host.size(), 0.0));
    const auto result = solver.solve(cudaStreamPerThread, matrix->a, b.data(), x.data(), cg_form::cuda_graph, options);
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    EXPECT_TRUE(result.converged);
    EXPECT_LE(ksync::test::sparse_true_residual(matrix == &a ? first : second, b_host, x.to_host()), 1e-8);
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
