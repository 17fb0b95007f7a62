// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a distributed solve must share with the one-device solve of the same recurrence, for both halves' MPI
// tests: both converged, within one iteration of each other, under the tolerance, a history entry per iteration;
// and, since the two share the row updates (ksync/cg_classic.hpp, ksync/cg_pipelined.hpp) and so agree on a
// wrong x, the residual of the ranks' x formed on the host.
#pragma once

#include "../support/sparse.hpp"

#include <ksync/cg_types.hpp>
#include <ksync/halo.hpp>
#include <ksync/mpi/collective.hpp>  // rank_of

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace ksync::test {

inline void expect_the_same_solve(const cg_result& result, const cg_result& reference, const cg_options& options,
                                  const std::string& where) {
  EXPECT_TRUE(reference.converged) << where;
  EXPECT_TRUE(result.converged) << where;
  EXPECT_LE(std::abs(result.iterations - reference.iterations), 1) << where;
  EXPECT_LE(result.relative_residual, options.tolerance) << where;
  EXPECT_EQ(result.residual_history.size(), static_cast<std::size_t>(result.iterations) + 1) << where;
}

// ||b - A x|| / ||b|| (in the M^-1 norm with Jacobi) within ten times the tolerance, x gathered from every rank's
// rows (x_mine: this rank's, split as `partition` splits A's rows) and the product formed on the host.
inline void expect_the_true_residual(const host_csr_matrix<double, std::int32_t>& a, const std::vector<double>& b,
                                     const double* x_mine, const row_partition& partition, const cg_options& options,
                                     const std::string& where) {
  std::vector<int> counts(static_cast<std::size_t>(partition.ranks()));
  std::vector<int> starts(counts.size());
  for (int r = 0; r < partition.ranks(); ++r) {
    counts[r] = static_cast<int>(partition.size(r));
    starts[r] = static_cast<int>(partition.begin(r));
  }
  std::vector<double> x(static_cast<std::size_t>(partition.rows()));
  const int mine = counts[static_cast<std::size_t>(ksync::mpi::rank_of(MPI_COMM_WORLD))];
  MPI_Allgatherv(x_mine, mine, MPI_DOUBLE, x.data(), counts.data(), starts.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  EXPECT_LE(sparse_true_residual(a, b, x, options.preconditioner == cg_preconditioner::jacobi), 10 * options.tolerance)
      << where << ": ||b - A x|| of the ranks' x, on the host";
}

}  // namespace ksync::test
