// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::mpi::distributed_csr and ksync::mpi::spmv (ksync/mpi/spmv.hpp) on however many ranks mpiexec starts
// (CTest: 1, 2, 3 and 4): each rank holds its block of rows of a generated matrix on its device, and the
// distributed product must give the one-rank product's rows bit for bit, its ghosts the other ranks' x.
#include "../support/sparse.hpp"
#include "failure.hpp"
#include "world.hpp"

#include <ksync/compat.hpp>
#include <ksync/detail/lanes.hpp>
#include <ksync/detail/spmv/row_sets.hpp>
#include <ksync/mpi/spmv.hpp>
#include <ksync/spmv.hpp>

#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using matrix = ksync::host_csr_matrix<double, std::int32_t>;
using ksync::rows_of;
using ksync::test::host_product;
using ksync::test::sparse_family;

// This rank's block of rows of `a`, split as `partition` says, as a distributed matrix (collective).
ksync::mpi::distributed_csr<double, std::int32_t> rank_block(const Exec& exec, const matrix& a,
                                                             const ksync::row_partition& partition, int rank) {
  return {exec, MPI_COMM_WORLD, partition, rows_of(a, partition.begin(rank), partition.end(rank))};
}

double x_at(std::int64_t j, int round) {
  return static_cast<double>((j * 7 + std::int64_t{round} * 3) % 13) - 6.0 + 0.125 * static_cast<double>(j % 5);
}

// The solvers' product tests' x: x_at(j, round) for every column j of `a`, and this rank's local columns of it
// (owned from `first`) in a View, NaN for the ghosts.
std::vector<double> global_x(const matrix& a, int round) {
  std::vector<double> x_global(static_cast<std::size_t>(a.cols));
  for (std::int64_t j = 0; j < a.cols; ++j)
    x_global[j] = x_at(j, round);
  return x_global;
}

Kokkos::View<double*> local_x(const ksync::mpi::distributed_csr<double, std::int32_t>& distributed,
                              const std::vector<double>& x_global, std::int64_t first) {
  Kokkos::View<double*> x("x", distributed.local_columns());
  const auto x_host = Kokkos::create_mirror_view(x);
  Kokkos::deep_copy(x_host, std::numeric_limits<double>::quiet_NaN());
  for (std::int64_t i = 0; i < distributed.owned_rows(); ++i)
    x_host(i) = x_global[first + i];
  Kokkos::deep_copy(x, x_host);
  return x;
}

// The one-rank rows of A x_global on exec's device (ksync::spmv, row_per_thread), on the host: a GPU's rows
// contract into FMAs, which host_product's do not, so a device's distributed rows are held to these.
auto one_rank_rows(const Exec& exec, const matrix& a, const std::vector<double>& x_global) {
  const ksync::csr_matrix whole(exec, a);
  const Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> x_all(x_global.data(),
                                                                                                      x_global.size());
  Kokkos::View<double*> y_all("y_all", a.rows);
  ksync::spmv(exec, whole, Kokkos::create_mirror_view_and_copy(exec, x_all), y_all,
              ksync::spmv_strategy::row_per_thread);
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y_all);
}

// Two products of `distributed` (this rank's block of `a`, split as `partition` says), the second with another x
// on another instance (the matrix keeps its exchange buffers between calls and, on a device, the halo's own
// instance, keyed on the instance it was made beside): each gives the one-rank rows bit for bit, and x's
// ghosts the other ranks' entries. x is any rank-1 View of distributed.local_columns() entries.
template <class XView>
void check_two_products(const matrix& a, const ksync::row_partition& partition,
                        const ksync::mpi::distributed_csr<double, std::int32_t>& distributed, const XView& x,
                        const std::string& what) {
  const auto [rank, size] = ksync::test::world();
  const Exec exec;
  const Exec other = ksync::compat::partition_space(exec, 1).front();
  const ksync::csr_matrix whole(exec, a);
  const std::int64_t first = partition.begin(rank);
  const ksync::halo_plan& plan = distributed.plan();
  Kokkos::View<double*> y("y", distributed.owned_rows());
  // x may be strided: host and device meet in a contiguous device copy (a strided View in another memory space
  // cannot be copied without a temporary, which Kokkos refuses), and x gets its values on the device.
  Kokkos::View<double*> x_contiguous("x_contiguous", x.extent(0));
  const auto x_host = Kokkos::create_mirror_view(Kokkos::HostSpace(), x_contiguous);
  for (int round = 0; round < 2; ++round) {
    std::vector<double> x_global(static_cast<std::size_t>(a.cols));
    for (std::int64_t j = 0; j < a.cols; ++j)
      x_global[j] = x_at(j, round);
    for (std::int64_t i = 0; i < plan.owned; ++i)
      x_host(i) = x_global[first + i];
    for (std::size_t g = 0; g < plan.ghosts.size(); ++g)
      x_host(plan.owned + static_cast<std::int64_t>(g)) = std::numeric_limits<double>::quiet_NaN();
    Kokkos::deep_copy(exec, x_contiguous, x_host);
    Kokkos::deep_copy(exec, x, x_contiguous);
    exec.fence();
    const Exec product_on = round == 0 ? exec : other;
    ksync::mpi::spmv(product_on, MPI_COMM_WORLD, distributed, x, y);
    product_on.fence();
    const auto y_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    Kokkos::deep_copy(exec, x_contiguous, x);
    Kokkos::deep_copy(exec, x_host, x_contiguous);
    exec.fence();
    // The one-rank product on this rank's device, row per thread: the same row operator, the same bits.
    const Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> x_all(
        x_global.data(), x_global.size());
    const auto x_device = Kokkos::create_mirror_view_and_copy(exec, x_all);
    Kokkos::View<double*> y_all("y_all", a.rows);
    ksync::spmv(exec, whole, x_device, y_all, ksync::spmv_strategy::row_per_thread);
    const auto expected = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y_all);
    const auto host_rows = host_product(a, x_global);
    const std::string where = what + ", halo " + std::string(ksync::mpi::to_string(distributed.halo())) + ", rank " +
                              std::to_string(rank) + " of " + std::to_string(size) + ", round " + std::to_string(round);
    for (std::size_t g = 0; g < plan.ghosts.size(); ++g)
      ASSERT_EQ(x_host(plan.owned + static_cast<std::int64_t>(g)), x_global[plan.ghosts[g]])
          << where << ", ghost " << g;
    for (std::int64_t i = 0; i < plan.owned; ++i) {
      ASSERT_EQ(y_host(i), expected(first + i)) << where << ", row " << first + i;
      ASSERT_NEAR(y_host(i), host_rows[first + i], 1e-12 * (1 + std::fabs(host_rows[first + i]))) << where;
    }
  }
}

// Every family at a size whose rows do not divide evenly among 3 or 4 ranks, the halo travelling as `halo`
// asks. Each matrix multiplies a contiguous x, then a strided one (one column of a two-column View), which
// takes its ghosts through the receive buffer: whether x can receive them is decided per call, not kept.
void check_every_family(ksync::mpi::halo_memory halo) {
  const auto [rank, size] = ksync::test::world();
  const Exec exec;
  for (const auto family : ksync::test::all_sparse_families) {
    const matrix a = ksync::test::generate<double, std::int32_t>(family, family == sparse_family::poisson_3d ? 5 : 11);
    const ksync::row_partition partition(a.rows, size);
    const ksync::mpi::distributed_csr distributed(exec, MPI_COMM_WORLD, partition,
                                                  rows_of(a, partition.begin(rank), partition.end(rank)), halo);
    ASSERT_EQ(distributed.owned_rows(), partition.size(rank));
    const bool direct = halo == ksync::mpi::halo_memory::direct ||
                        (halo == ksync::mpi::halo_memory::automatic && ksync::mpi::mpi_reaches<Exec::memory_space>());
    EXPECT_EQ(distributed.halo(), direct ? ksync::mpi::halo_memory::direct : ksync::mpi::halo_memory::staged);
    check_two_products(a, partition, distributed, Kokkos::View<double*>("x", distributed.local_columns()),
                       to_string(family));
    const Kokkos::View<double**, Kokkos::LayoutRight> columns("x_columns", distributed.local_columns(), 2);
    check_two_products(a, partition, distributed, Kokkos::subview(columns, Kokkos::ALL, 1),
                       to_string(family) + ", strided x");
  }
}

TEST(MpiSpmv, EveryRankGivesTheOneRankRowsBitForBit) {
  check_every_family(ksync::mpi::halo_memory::automatic);
}

// The halo staged through pinned host memory, whatever the MPI reads; and, where the MPI reads the device's
// memory (always on host backends), sent from and received into it.
TEST(MpiSpmv, EveryHaloPathGivesTheSameRows) {
  check_every_family(ksync::mpi::halo_memory::staged);
  if (ksync::mpi::mpi_reaches<Exec::memory_space>()) check_every_family(ksync::mpi::halo_memory::direct);
}

// The paths by name, as to_string spells them; any other name is refused, naming it and the paths.
TEST(MpiSpmv, HaloPathsAreNamedBothWays) {
  using ksync::mpi::halo_memory;
  for (const halo_memory memory : {halo_memory::automatic, halo_memory::direct, halo_memory::staged, halo_memory::peer})
    EXPECT_EQ(ksync::mpi::halo_memory_from_string(ksync::mpi::to_string(memory)), memory);
  try {
    static_cast<void>(ksync::mpi::halo_memory_from_string("pinned"));
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(
        std::string(error.what()),
        "ksync::mpi::halo_memory_from_string: name = \"pinned\" is not a halo path (automatic, direct, staged, peer)");
  }
}

// Making a matrix whose halo travels by `halo` must stop every rank with collective_error holding `text`.
void expect_the_halo_refused(ksync::mpi::halo_memory halo, const std::string& text) {
  const auto [rank, size] = ksync::test::world();
  const Exec exec;
  const matrix a = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 6);
  const ksync::row_partition partition(a.rows, size);
  try {
    const ksync::mpi::distributed_csr distributed(exec, MPI_COMM_WORLD, partition,
                                                  rows_of(a, partition.begin(rank), partition.end(rank)), halo);
    ADD_FAILURE() << "no exception for " << text;
  } catch (const ksync::mpi::collective_error& error) {
    EXPECT_NE(std::string(error.what()).find(text), std::string::npos) << error.what();
  }
}

// Asking for the direct path where the MPI cannot read the device's memory stops every rank, naming the space.
TEST(MpiSpmv, ADirectHaloTheMpiCannotReadStopsEveryRank) {
  if (ksync::mpi::mpi_reaches<Exec::memory_space>())
    GTEST_SKIP() << "this MPI reads " << Exec::memory_space::name() << " memory: nothing to refuse";
  expect_the_halo_refused(ksync::mpi::halo_memory::direct,
                          std::string("halo = direct, but this MPI does not read ") + Exec::memory_space::name());
}

// The peer path is the native half's (GPU to GPU through CUDA IPC): the portable matrix refuses it on every rank,
// on every backend, before it sends anything.
TEST(MpiSpmv, APeerHaloStopsEveryRank) {
  expect_the_halo_refused(ksync::mpi::halo_memory::peer,
                          "halo = peer: the native half's path (ksync::cuda::mpi::distributed_csr)");
}

// A rank whose x has the wrong length stops every rank with its message before any rank sends.
TEST(MpiSpmv, AWrongExtentOnOneRankStopsEveryRank) {
  const auto [rank, size] = ksync::test::world();
  const Exec exec;
  const matrix a = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 6);
  const ksync::row_partition partition(a.rows, size);
  const auto distributed = rank_block(exec, a, partition, rank);
  const int faulty = size - 1;
  Kokkos::View<double*> x("x", distributed.local_columns() + (rank == faulty ? 1 : 0));
  Kokkos::View<double*> y("y", distributed.owned_rows());
  try {
    ksync::mpi::spmv(exec, MPI_COMM_WORLD, distributed, x, y);
    ADD_FAILURE() << "no exception";
  } catch (const ksync::mpi::collective_error& error) {
    EXPECT_EQ(error.failing_rank(), faulty);
    EXPECT_NE(std::string(error.what())
                  .find("ksync::mpi::spmv: rank " + std::to_string(faulty) + " of " + std::to_string(size) +
                        ": x.extent(0) = "),
              std::string::npos)
        << error.what();
  }
  // Rows that do not match the partition on one rank stop every rank when the matrix is made.
  const std::int64_t last = partition.end(rank) - (rank == faulty && partition.size(rank) > 0 ? 1 : 0);
  EXPECT_THROW(ksync::mpi::distributed_csr(exec, MPI_COMM_WORLD, partition, rows_of(a, partition.begin(rank), last)),
               ksync::mpi::collective_error);
}

// The solvers' product (detail::spmv_unchecked with ghost_destination::where_they_arrive) reads staged ghosts where
// they arrived instead of copying them into x: the same rows bit for bit, x's ghosts left as they were.
TEST(MpiSpmv, TheSolversProductReadsStagedGhostsWhereTheyArrived) {
  const auto [rank, size] = ksync::test::world();
  const Exec exec;
  for (const auto family : {sparse_family::poisson_2d, sparse_family::random_laplacian}) {
    const matrix a = ksync::test::generate<double, std::int32_t>(family, 11);
    const ksync::row_partition partition(a.rows, size);
    const std::int64_t first = partition.begin(rank);
    const ksync::mpi::distributed_csr distributed(
        exec, MPI_COMM_WORLD, partition, rows_of(a, first, partition.end(rank)), ksync::mpi::halo_memory::staged);
    const std::int64_t owned = distributed.owned_rows();
    const std::vector<double> x_global = global_x(a, 0);
    const auto x = local_x(distributed, x_global, first);
    Kokkos::View<double*> y("y", owned);
    ksync::mpi::detail::local_failure failure;
    ksync::mpi::detail::spmv_unchecked(exec, MPI_COMM_WORLD, distributed, x, y, failure,
                                       ksync::mpi::detail::ghost_destination::where_they_arrive);
    failure.rethrow_here();
    exec.fence();
    const auto y_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    const auto x_after = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    const auto expected = one_rank_rows(exec, a, x_global);
    const std::string where = to_string(family) + ", rank " + std::to_string(rank) + " of " + std::to_string(size);
    for (std::int64_t g = owned; g < distributed.local_columns(); ++g)
      EXPECT_TRUE(std::isnan(x_after(g))) << where << ": ghost " << g - owned << " was written into x";
    for (std::int64_t i = 0; i < owned; ++i)
      ASSERT_EQ(y_host(i), expected(first + i)) << where << ", row " << first + i;
  }
}

// The classic CG's product (detail::spmv_unchecked with a `dot`) also sums x . y over this rank's rows, the
// interior rows' share in entry 0 and the boundary rows' in entry 1, in the same passes: the same rows bit for bit,
// each share the host's sum over its row set, and an empty row set's entry left as it was made (one rank has no
// boundary rows). Both ghost destinations, a staged and an automatic halo, row sets as runs and as lists.
TEST(MpiSpmv, TheSolversProductSumsXDotYOverEachRowSet) {
  const auto [rank, size] = ksync::test::world();
  const Exec exec;
  using ksync::mpi::detail::ghost_destination;
  for (const auto family : {sparse_family::poisson_2d, sparse_family::random_laplacian}) {
    for (const auto destination : {ghost_destination::x, ghost_destination::where_they_arrive}) {
      for (const auto halo : {ksync::mpi::halo_memory::staged, ksync::mpi::halo_memory::automatic}) {
        const matrix a = ksync::test::generate<double, std::int32_t>(family, 12);
        const ksync::row_partition partition(a.rows, size);
        const std::int64_t first = partition.begin(rank);
        const ksync::mpi::distributed_csr distributed(exec, MPI_COMM_WORLD, partition,
                                                      rows_of(a, first, partition.end(rank)), halo);
        const std::int64_t owned = distributed.owned_rows();
        const std::vector<double> x_global = global_x(a, 1);
        const auto x = local_x(distributed, x_global, first);
        Kokkos::View<double*> y("y", owned);
        const double unset = -1.5;  // what the shares hold before the product
        Kokkos::View<double*, Kokkos::SharedHostPinnedSpace> shares("shares", 2);
        Kokkos::deep_copy(shares, unset);
        ksync::mpi::detail::local_failure failure;
        ksync::mpi::detail::spmv_unchecked(exec, MPI_COMM_WORLD, distributed, x, y, failure, destination, shares);
        failure.rethrow_here();
        exec.fence();
        const auto y_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
        const auto expected = one_rank_rows(exec, a, x_global);
        const std::string where = to_string(family) + ", halo " + std::string(to_string(distributed.halo())) +
                                  ", rank " + std::to_string(rank) + " of " + std::to_string(size);
        for (std::int64_t i = 0; i < owned; ++i)
          ASSERT_EQ(y_host(i), expected(first + i)) << where << ", row " << first + i;
        const auto share_of = [&](const auto& rows, int entry) {
          if (rows.count == 0) {
            EXPECT_EQ(shares(entry), unset) << where << ": the empty row set's entry " << entry << " was written";
            return;
          }
          double sum = 0;
          double magnitude = 0;
          const auto list = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows.list);
          for (std::int64_t k = 0; k < rows.count; ++k) {
            const std::int64_t i = rows.is_run() ? rows.first + k : list(k);
            sum += x_global[first + i] * expected(first + i);
            magnitude += std::abs(x_global[first + i] * expected(first + i));
          }
          EXPECT_NEAR(shares(entry), sum, 1e-13 * magnitude) << where << ", entry " << entry;
        };
        share_of(distributed.interior_rows(), 0);
        share_of(distributed.boundary_rows(), 1);
        if (size == 1) {
          EXPECT_EQ(distributed.boundary_rows().count, 0) << where;
        }
      }
    }
  }
}

// The fused rows' host lanes: rows_product_and_dot over chunks of rows, each lane's terms summed in chains
// (ksync/detail/lanes.hpp). CTest runs one thread a rank and row sets too short for a second lane, so here three
// lanes of a hand-made split, on the host, over a run of rows and over a list.
TEST(MpiSpmv, TheProductAndDotRowsSumEveryHostLane) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  const Host host;
  const matrix a = ksync::test::generate<double, std::int32_t>(sparse_family::random_laplacian, 9);
  const ksync::csr_matrix<double, std::int32_t, Kokkos::HostSpace> whole(host, a);
  const std::vector<double> x_global = global_x(a, 2);
  const Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> x(x_global.data(),
                                                                                                  x_global.size());
  const auto expected = host_product(a, x_global);
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> every_row("every_row", a.rows);
  for (std::int64_t i = 0; i < a.rows; ++i)
    every_row(i) = a.rows - 1 - i;  // a list, backwards
  const ksync::detail::lane_split lanes{.n = a.rows, .lanes = 3, .chunk = (a.rows + 2) / 3};
  const auto check = [&](const auto& row_of, const std::string& what) {
    Kokkos::View<double*, Kokkos::HostSpace> y("y", a.rows);
    double sum = 0;
    Kokkos::parallel_reduce(Kokkos::RangePolicy<Host, Kokkos::IndexType<std::int64_t>>(host, 0, lanes.lanes),
                            ksync::detail::rows_product_and_dot<decltype(whole), std::remove_cvref_t<decltype(row_of)>,
                                                                decltype(x), decltype(y)>{whole, row_of, x, y, lanes},
                            sum);
    double wanted = 0;
    double magnitude = 0;
    for (std::int64_t i = 0; i < a.rows; ++i) {
      EXPECT_NEAR(y(i), expected[i], 1e-12 * (1 + std::abs(expected[i]))) << what << ", row " << i;
      wanted += x_global[i] * expected[i];
      magnitude += std::abs(x_global[i] * expected[i]);
    }
    EXPECT_NEAR(sum, wanted, 1e-13 * magnitude) << what;
  };
  check(ksync::detail::row_run{0}, "a run");
  check(every_row, "a list");
}

// A rank whose own work throws before it sends (its pack kernel; with one rank, which packs nothing, its
// interior rows) still sends and receives its halo, then throws what it caught: the other ranks' products
// return, and the next product on every rank gives the one-rank rows bit for bit.
TEST(MpiSpmv, ARankThatFailsStillSendsItsHalo) {
  const auto [rank, size] = ksync::test::world();
  const int faulty = size - 1;
  const std::string label = size > 1 ? "ksync::mpi::spmv::pack" : "ksync::mpi::spmv::interior";
  const Exec exec;
  const matrix a = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 11);
  const ksync::row_partition partition(a.rows, size);
  const auto distributed = rank_block(exec, a, partition, rank);
  Kokkos::View<double*> x("x", distributed.local_columns());
  Kokkos::View<double*> y("y", distributed.owned_rows());
  Kokkos::deep_copy(x, 1.0);
  {
    std::optional<ksync::test::failure_at_kernel> injected;
    if (rank == faulty) injected.emplace(label, 1);
    if (rank == faulty) {
      try {
        ksync::mpi::spmv(exec, MPI_COMM_WORLD, distributed, x, y);
        ADD_FAILURE() << "no exception on the failing rank";
      } catch (const std::runtime_error& error) {
        EXPECT_EQ(std::string(error.what()), "injected failure in " + label);
      }
    } else {
      ksync::mpi::spmv(exec, MPI_COMM_WORLD, distributed, x, y);
    }
  }
  ksync::mpi::spmv(exec, MPI_COMM_WORLD, distributed, x, y);
  const auto expected = host_product(a, std::vector<double>(static_cast<std::size_t>(a.cols), 1.0));
  const auto y_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  for (std::int64_t i = 0; i < distributed.owned_rows(); ++i)
    ASSERT_EQ(y_host(i), expected[partition.begin(rank) + i]) << "row " << partition.begin(rank) + i;
}

}  // namespace
