// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::csr_matrix: its structural check, and ksync::cg on it in every reachable form (the native ones
// through the bridge on Kokkos::Cuda) against the host CG in double, on every generated matrix family; a kept
// graph rebuilt for another matrix, preconditioner or recurrence.
#include "support/cg_operator.hpp"  // poisson_rows (an operator by rows without a diagonal), expect_csr_solves
#include "support/errors.hpp"
#include "support/kokkos.hpp"
#include "support/sparse.hpp"
#include "support/types.hpp"

#include <ksync/cg.hpp>
#include <ksync/csr_matrix.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using ksync::cg_form;
using exec_space = Kokkos::DefaultExecutionSpace;
using memory_space = exec_space::memory_space;
using ksync::test::sparse_family;

KSYNC_TYPED_SUITE(CsrCg, ksync::test::floating_types);

std::vector<cg_form> reachable_forms() {
  return ksync::test::reachable<exec_space>(ksync::all_cg_forms);
}

TYPED_TEST(CsrCg, EveryReachableFormSolvesEveryFamily) {
  ksync::test::for_each_family_case<TypeParam>(
      reachable_forms(), ksync::test::solver_test_sizes, [](const auto& host, cg_form form, int m) {
        ksync::test::expect_csr_solves(host, form, 11u + static_cast<unsigned int>(m));
      });
}

// Jacobi PCG (M = diag(A)) against the host PCG, on every family in every reachable form.
TYPED_TEST(CsrCg, JacobiPreconditionedSolvesEveryFamily) {
  ksync::test::for_each_family_case<TypeParam>(
      reachable_forms(), ksync::test::preconditioned_test_sizes, [](const auto& host, cg_form form, int /*m*/) {
        ksync::test::expect_csr_solves(host, form, 17u, ksync::cg_preconditioner::jacobi);
      });
}

// What Jacobi buys: fewer iterations where the diagonal varies (variable coefficients), the same where it is
// constant (the built-in stencil, whose diagonal is 4: M^-1 only scales the recurrence).
TEST(CsrCg, JacobiCutsIterationsWhereTheDiagonalVaries) {
  const exec_space exec;
  const int m = 24;
  const auto host = ksync::test::generate<double, std::int32_t>(sparse_family::variable_2d, m);
  const ksync::csr_matrix a(exec, host);
  const auto b = ksync::test::to_device(ksync::test::sparse_right_hand_side<double>(host.rows, 3u));
  const auto iterations = [&](const auto& op, ksync::cg_preconditioner preconditioner) {
    const Kokkos::View<double*> x("x", b.extent(0));
    ksync::cg_options options;
    options.tolerance = 1e-8;
    options.max_iterations = 5000;
    options.preconditioner = preconditioner;
    const auto result = ksync::cg(exec, op, b, x, cg_form::fused, options);
    EXPECT_TRUE(result.converged);
    return result.iterations;
  };
  const int plain = iterations(a, ksync::cg_preconditioner::none);
  const int jacobi = iterations(a, ksync::cg_preconditioner::jacobi);
  EXPECT_LT(jacobi, plain * 3 / 4) << "plain " << plain << ", jacobi " << jacobi;
  EXPECT_NEAR(iterations(ksync::poisson_2d{m}, ksync::cg_preconditioner::jacobi),
              iterations(ksync::poisson_2d{m}, ksync::cg_preconditioner::none), 1);
}

// A zero diagonal entry is refused at the start, x left as it was; an operator without a diagonal before it.
TEST(CsrCg, JacobiRefusesABadDiagonalAndAnOperatorWithoutOne) {
  const exec_space exec;
  auto host = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 4);
  for (auto k = host.row_offsets[5]; k < host.row_offsets[6]; ++k)
    if (host.columns[k] == 5) host.values[k] = 0.0;
  const ksync::csr_matrix a(exec, host);
  const auto guess = ksync::test::sparse_right_hand_side<double>(16, 8u);
  const auto b = ksync::test::to_device(ksync::test::sparse_right_hand_side<double>(16, 9u));
  ksync::cg_options options;
  options.preconditioner = ksync::cg_preconditioner::jacobi;
  for (const auto form : ksync::test::reachable<exec_space>(ksync::all_cg_forms)) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    const auto x = ksync::test::to_device(guess);
    EXPECT_TRUE(ksync::test::refuses([&] { (void)ksync::cg(exec, a, b, x, form, options); },
                                     "options.preconditioner = jacobi needs a positive, finite diagonal"));
    exec.fence();
    EXPECT_EQ(ksync::test::to_host(x), guess);
  }
  const auto x = ksync::test::to_device(guess);
  EXPECT_TRUE(ksync::test::refuses(
      [&] { (void)ksync::cg(exec, ksync::test::poisson_rows{.m = 4, .shift = 0.5}, b, x, cg_form::fused, options); },
      "options.preconditioner = jacobi needs the operator's diagonal as op.diagonal(i)"));
}

// 64-bit offsets, 64-bit columns, and Kokkos Kernels' unsigned size_t offsets.
TYPED_TEST(CsrCg, EveryIndexTypeSolves) {
  using T = TypeParam;
  const int m = 9;
  for (const auto form : ksync::test::reachable<exec_space>(ksync::all_cg_forms)) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    ksync::test::expect_csr_solves(ksync::test::generate<T, std::int32_t, std::int64_t>(sparse_family::variable_2d, m),
                                   form, 3u);
    ksync::test::expect_csr_solves(ksync::test::generate<T, std::int64_t, std::int64_t>(sparse_family::variable_2d, m),
                                   form, 3u);
    ksync::test::expect_csr_solves(ksync::test::generate<T, std::int32_t, std::uint64_t>(sparse_family::variable_2d, m),
                                   form, 3u);
  }
}

// A solver's kept graph (kokkos_graph, and cuda_graph through the bridge) holds the matrix it was built
// with: a second matrix of the same extent must be solved as itself.
TEST(CsrCg, AKeptGraphIsRebuiltForAnotherMatrix) {
  const exec_space exec;
  const int m = 8;
  const auto first = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, m);
  const auto second = ksync::test::generate<double, std::int32_t>(sparse_family::variable_2d, m);
  const ksync::csr_matrix a(exec, first);
  const ksync::csr_matrix c(exec, second);
  const auto b_host = ksync::test::sparse_right_hand_side<double>(first.rows, 5u);
  const auto b = ksync::test::to_device(b_host);
  for (const auto form : ksync::test::reachable<exec_space>(ksync::all_cg_forms)) {
    if (!ksync::replays_a_graph(form)) continue;  // the forms that keep a captured graph between solves
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    ksync::cg_solver<exec_space, double> solver(exec, first.rows);
    ksync::cg_options options;
    options.tolerance = 1e-10;
    const Kokkos::View<double*> x("x", static_cast<std::size_t>(first.rows));  // one x: only the matrix changes
    for (const auto* matrix : {&a, &c}) {
      Kokkos::deep_copy(exec, x, 0.0);
      const auto result = solver.solve(exec, *matrix, b, x, form, options);
      exec.fence();
      EXPECT_TRUE(result.converged);
      const auto& host = matrix == &a ? first : second;
      EXPECT_LE(ksync::test::sparse_true_residual(host, b_host, ksync::test::to_host(x)), 1e-8);
    }
  }
}

// The kept graphs capture M^-1 and the recurrence: one solver and one x, one of them changed between solves;
// each solve must follow the host (P)CG it matches, which a graph of the other option would not. Pipelined
// before classic: a pipelined graph kept for a classic solve divides by a p.Ap the classic start zeroed.
TEST(CsrCg, AKeptGraphIsRebuiltWhenACapturedOptionChanges) {
  using ksync::cg_preconditioner;
  using ksync::cg_recurrence;
  const exec_space exec;
  const auto host = ksync::test::generate<double, std::int32_t>(sparse_family::variable_2d, 12);
  const ksync::csr_matrix a(exec, host);
  const auto b_host = ksync::test::sparse_right_hand_side<double>(host.rows, 21u);
  const std::vector<double> zero(b_host.size(), 0.0);
  const auto b = ksync::test::to_device(b_host);
  const std::pair<cg_preconditioner, cg_recurrence> steps[] = {{cg_preconditioner::none, cg_recurrence::pipelined},
                                                               {cg_preconditioner::none, cg_recurrence::classic},
                                                               {cg_preconditioner::jacobi, cg_recurrence::classic},
                                                               {cg_preconditioner::none, cg_recurrence::classic},
                                                               {cg_preconditioner::none, cg_recurrence::pipelined}};
  for (const auto form : ksync::test::reachable<exec_space>(ksync::all_cg_forms)) {
    if (!ksync::replays_a_graph(form)) continue;  // the forms that keep a captured graph between solves
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    ksync::cg_solver<exec_space, double> solver(exec, host.rows);
    const Kokkos::View<double*> x("x", b_host.size());
    for (const auto& [preconditioner, recurrence] : steps) {
      SCOPED_TRACE(std::string(ksync::to_string(preconditioner)) + ", " + std::string(ksync::to_string(recurrence)));
      const bool jacobi = preconditioner == cg_preconditioner::jacobi;
      const auto reference = ksync::test::host_sparse_cg(host, b_host, zero, 1e-10, 2000, jacobi);
      Kokkos::deep_copy(exec, x, 0.0);
      auto options = ksync::test::cg_options_with(1e-10, 2000, 4);
      options.preconditioner = preconditioner;
      options.recurrence = recurrence;
      const auto result = solver.solve(exec, a, b, x, form, options);
      exec.fence();
      EXPECT_TRUE(result.converged);
      EXPECT_EQ(result.restarts, 0);
      EXPECT_NEAR(result.iterations, reference.iterations, recurrence == cg_recurrence::pipelined ? 2 : 1);
      EXPECT_LE(ksync::test::sparse_true_residual(host, b_host, ksync::test::to_host(x), jacobi), 2e-10);
    }
  }
}

// Views of one matrix wrapped as Kokkos Kernels' CrsMatrix holds them (graph.row_map, graph.entries, values).
struct crs_graph_like {
  Kokkos::View<const std::uint64_t*> row_map;
  Kokkos::View<const int*> entries;
};
struct crs_like {
  crs_graph_like graph;
  Kokkos::View<const double*> values;
  int rows;
  int numRows() const { return rows; }  // NOLINT(readability-identifier-naming): Kokkos Kernels' spelling
  int numCols() const { return rows; }  // NOLINT(readability-identifier-naming): Kokkos Kernels' spelling
};

TEST(CsrMatrix, TakesACrsMatrixsViews) {
  const exec_space exec;
  const auto host = ksync::test::generate<double, std::int32_t, std::uint64_t>(sparse_family::poisson_3d, 4);
  const crs_like crs{
      .graph = {.row_map = ksync::test::to_device(host.row_offsets), .entries = ksync::test::to_device(host.columns)},
      .values = ksync::test::to_device(host.values),
      .rows = static_cast<int>(host.rows)};
  const ksync::csr_matrix<double, std::int32_t, memory_space, std::uint64_t> a(exec, crs);
  EXPECT_EQ(a.rows(), 64);
  EXPECT_EQ(a.nnz(), host.nnz());
  EXPECT_EQ(a.row_offsets().data(), crs.graph.row_map.data());  // shared, not copied
}

// The structural check names the first faulty row, before any solve.
TEST(CsrMatrix, BadStructureIsRefusedWithTheFirstFaultyRow) {
  const exec_space exec;
  const auto good = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 4);
  const auto refused = [&](ksync::host_csr_matrix<double, std::int32_t> bad, const char* expected) {
    return ksync::test::refuses([&] { (void)ksync::csr_matrix(exec, bad); }, expected);
  };
  auto bad = good;
  bad.row_offsets[0] = 1;
  EXPECT_TRUE(refused(bad, "ksync::csr_matrix: row_offsets(0) must be 0"));
  bad = good;
  bad.row_offsets[6] = bad.row_offsets[5] - 1;
  EXPECT_TRUE(refused(bad, "ksync::csr_matrix: row_offsets decrease at row 5: row_offsets(6) < row_offsets(5)"));
  bad = good;
  bad.columns[bad.row_offsets[9] + 1] = 16;
  EXPECT_TRUE(refused(bad, "ksync::csr_matrix: row 9 has a column index outside [0, cols = 16)"));
  bad = good;
  bad.columns[bad.row_offsets[2]] = -1;
  EXPECT_TRUE(refused(bad, "ksync::csr_matrix: row 2 has a column index outside [0, cols = 16)"));
  bad = good;
  bad.row_offsets.back() -= 1;
  EXPECT_TRUE(refused(bad, "ksync::csr_matrix: row_offsets(rows = 16) must be nnz = 64"));
  bad = good;
  bad.row_offsets[3] = 70;
  EXPECT_TRUE(refused(bad, "ksync::csr_matrix: row_offsets(3) lies outside [0, nnz = 64]"));
  bad = good;
  bad.row_offsets.pop_back();
  EXPECT_TRUE(refused(bad, "ksync::csr_matrix: row_offsets has 16 entries but rows = 16 needs 17"));
  bad = good;
  bad.values.pop_back();
  EXPECT_TRUE(refused(bad, "ksync::csr_matrix: columns has 64 entries but values has 63"));
  // The host matrix checks itself the same way.
  bad = good;
  bad.row_offsets[6] = bad.row_offsets[5] - 1;
  EXPECT_TRUE(ksync::test::refuses([&] { bad.check(); }, "row_offsets decrease at row 5"));
  EXPECT_NO_THROW(good.check());
}

TEST(CsrMatrix, CgRefusesANonSquareMatrix) {
  const exec_space exec;
  auto host = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 3);
  host.cols = 10;
  const ksync::csr_matrix a(exec, host);
  const Kokkos::View<double*> b("b", 9);
  const Kokkos::View<double*> x("x", 9);
  EXPECT_EQ(ksync::test::invalid_argument_message([&] { (void)ksync::cg(exec, a, b, x); }),
            "ksync::cg: the matrix has 9 rows and 10 columns; CG needs a square one");
}

}  // namespace
