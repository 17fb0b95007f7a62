// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::mpi::complete_sends and ksync::mpi::exchange (ksync/mpi/halo.hpp) on however many ranks mpiexec
// starts (CTest: 1, 2, 3 and 4): each rank localizes its rows of a generated matrix, the ranks build their
// halo plans together and exchange x, and each rank's local product must give the global product's rows bit
// for bit; and ksync::mpi::reads_cuda_memory's override (ksync/mpi/device_memory.hpp). Plain MPI and C++: no
// Kokkos.
#include "../support/sparse.hpp"

#include <ksync/halo.hpp>
#include <ksync/mpi/device_memory.hpp>
#include <ksync/mpi/halo.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using matrix = ksync::host_csr_matrix<double, std::int32_t>;
using ksync::rows_of;
using ksync::test::host_product;
using ksync::test::sparse_family;

double x_at(std::int64_t j) {
  return static_cast<double>((j * 7) % 13) - 6.0 + 0.125 * static_cast<double>(j % 5);
}

TEST(MpiHalo, EveryRanksLocalProductGivesTheGlobalRows) {
  const int rank = ksync::mpi::rank_of(MPI_COMM_WORLD);
  const int size = ksync::mpi::size_of(MPI_COMM_WORLD);
  for (const auto family : ksync::test::all_sparse_families) {
    const matrix a = ksync::test::generate<double, std::int32_t>(family, family == sparse_family::poisson_3d ? 5 : 9);
    const ksync::row_partition partition(a.rows, size);
    auto local = ksync::localize(partition, rank, rows_of(a, partition.begin(rank), partition.end(rank)));
    ksync::mpi::complete_sends(MPI_COMM_WORLD, partition, local.plan);
    // Only this rank's own x is set; the ghosts must come from the exchange.
    std::vector<double> x(static_cast<std::size_t>(local.plan.local_columns()), -1.0e300);
    for (std::int64_t i = 0; i < local.plan.owned; ++i)
      x[i] = x_at(partition.begin(rank) + i);
    ksync::mpi::exchange(MPI_COMM_WORLD, local.plan, std::span<double>(x));
    for (std::size_t g = 0; g < local.plan.ghosts.size(); ++g)
      ASSERT_EQ(x[local.plan.owned + g], x_at(local.plan.ghosts[g])) << to_string(family) << ", ghost " << g;
    std::vector<double> x_global(static_cast<std::size_t>(a.cols));
    for (std::int64_t j = 0; j < a.cols; ++j)
      x_global[j] = x_at(j);
    const auto y = host_product(a, x_global);
    const auto y_local = host_product(local.matrix, x);
    for (std::int64_t i = 0; i < local.matrix.rows; ++i)
      ASSERT_EQ(y_local[i], y[partition.begin(rank) + i]) << to_string(family) << ", rank " << rank << " of " << size;
  }
}

// A rank whose x is the wrong length stops every rank with its message, instead of leaving the others
// waiting for values it never sends.
TEST(MpiHalo, AMistakeOnOneRankStopsEveryRank) {
  const int rank = ksync::mpi::rank_of(MPI_COMM_WORLD);
  const int size = ksync::mpi::size_of(MPI_COMM_WORLD);
  const matrix a = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 6);
  const ksync::row_partition partition(a.rows, size);
  auto local = ksync::localize(partition, rank, rows_of(a, partition.begin(rank), partition.end(rank)));
  ksync::mpi::complete_sends(MPI_COMM_WORLD, partition, local.plan);
  const int faulty = size - 1;
  std::vector<double> x(static_cast<std::size_t>(local.plan.local_columns() + (rank == faulty ? 1 : 0)));
  try {
    ksync::mpi::exchange(MPI_COMM_WORLD, local.plan, std::span<double>(x));
    ADD_FAILURE() << "no exception";
  } catch (const ksync::mpi::collective_error& error) {
    EXPECT_EQ(error.failing_rank(), faulty);
    EXPECT_NE(std::string(error.what()).find("ksync::mpi::exchange: rank " + std::to_string(faulty)), std::string::npos)
        << error.what();
  }
  // A partition with another number of blocks than comm has ranks is refused the same way.
  const ksync::row_partition wrong(a.rows, size + 1);
  auto other = ksync::localize(wrong, rank, rows_of(a, wrong.begin(rank), wrong.end(rank)));
  EXPECT_THROW(ksync::mpi::complete_sends(MPI_COMM_WORLD, wrong, other.plan), ksync::mpi::collective_error);
}

// A rank that asks another for a row it does not own (here rank 0 asks rank 1 for row 0) stops every rank,
// and no rank keeps a half-built send side.
TEST(MpiHalo, ARefusedRequestLeavesNoSendSide) {
  const int rank = ksync::mpi::rank_of(MPI_COMM_WORLD);
  const int size = ksync::mpi::size_of(MPI_COMM_WORLD);
  if (size < 2) GTEST_SKIP() << "needs two ranks";
  const matrix a = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 6);
  const ksync::row_partition partition(a.rows, size);
  auto local = ksync::localize(partition, rank, rows_of(a, partition.begin(rank), partition.end(rank)));
  if (rank == 0) {
    ASSERT_FALSE(local.plan.ghosts.empty());
    ASSERT_EQ(local.plan.source_ranks.front(), 1);
    local.plan.ghosts.front() = 0;  // a row rank 0 owns itself
  }
  EXPECT_THROW(ksync::mpi::complete_sends(MPI_COMM_WORLD, partition, local.plan), ksync::mpi::collective_error);
  EXPECT_TRUE(local.plan.target_ranks.empty() && local.plan.target_offsets.empty() && local.plan.sends.empty());
}

// KSYNC_MPI_GPU_AWARE = 1 or 0 overrides what the MPI says about reading CUDA device memory; any other value
// is refused, naming it; unset, the library's own answer stands.
TEST(MpiDeviceMemory, TheEnvironmentOverridesTheLibrarysAnswer) {
  constexpr const char* name = "KSYNC_MPI_GPU_AWARE";
  const char* const given = std::getenv(name);
  const std::optional<std::string> saved = given != nullptr ? std::optional<std::string>(given) : std::nullopt;
  ::unsetenv(name);
  EXPECT_EQ(ksync::mpi::reads_cuda_memory(), ksync::mpi::library_reads_cuda_memory());
  ::setenv(name, "1", 1);
  EXPECT_TRUE(ksync::mpi::reads_cuda_memory());
  ::setenv(name, "0", 1);
  EXPECT_FALSE(ksync::mpi::reads_cuda_memory());
  ::setenv(name, "yes", 1);
  try {
    static_cast<void>(ksync::mpi::reads_cuda_memory());
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("KSYNC_MPI_GPU_AWARE = 'yes'"), std::string::npos) << error.what();
  }
  if (saved) {
    ::setenv(name, saved->c_str(), 1);
  } else {
    ::unsetenv(name);
  }
}

}  // namespace
