// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::mpi::cg (ksync/mpi/cg.hpp) on however many ranks mpiexec starts (CTest: 1, 2, 3 and 4): each rank
// holds its block of rows of a generated matrix, and the distributed solve must stop within one iteration of
// the one-rank ksync::cg of the same recurrence (host_scalars for classic, fused for pipelined: only the sums'
// order differs) with a solution as close to it as the tolerance allows, and ||b - A x|| formed on the host
// within ten times the tolerance, with and without Jacobi; bad input stops every rank.
#include "../support/sparse.hpp"
#include "failure.hpp"
#include "solve_checks.hpp"
#include "world.hpp"

#include <ksync/cg.hpp>
#include <ksync/mpi/cg.hpp>

#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using matrix = ksync::host_csr_matrix<double, std::int32_t>;
using ksync::rows_of;
using ksync::test::sparse_family;

struct distributed_problem {
  matrix a;
  ksync::row_partition partition;
  std::vector<double> b;
};

distributed_problem problem_of(sparse_family family, int m) {
  matrix a = ksync::test::generate<double, std::int32_t>(family, m);
  const ksync::row_partition partition(a.rows, ksync::mpi::size_of(MPI_COMM_WORLD));
  auto b = ksync::test::sparse_right_hand_side<double>(a.rows, 7);
  return {.a = std::move(a), .partition = partition, .b = std::move(b)};
}

Kokkos::View<double*> device_copy(const std::vector<double>& host, std::int64_t first, std::int64_t count) {
  Kokkos::View<double*> out("v", count);
  const auto mirror = Kokkos::create_mirror_view(out);
  for (std::int64_t i = 0; i < count; ++i)
    mirror(i) = host[first + i];
  Kokkos::deep_copy(out, mirror);
  return out;
}

// This rank's block of p's rows, as a distributed matrix, and its rows of b.
struct rank_part {
  ksync::mpi::distributed_csr<double, std::int32_t> a;
  Kokkos::View<double*> b;
};

rank_part part_of(const Exec& exec, const distributed_problem& p, int rank,
                  ksync::mpi::halo_memory halo = ksync::mpi::halo_memory::automatic) {
  const std::int64_t first = p.partition.begin(rank);
  const std::int64_t count = p.partition.size(rank);
  return {.a = ksync::mpi::distributed_csr<double, std::int32_t>(exec, MPI_COMM_WORLD, p.partition,
                                                                 rows_of(p.a, first, first + count), halo),
          .b = device_copy(p.b, first, count)};
}

// Which matrices a comparison solves: `families` at size m (the 3-D family at m_3d).
struct solved_matrices {
  std::span<const sparse_family> families = ksync::test::all_sparse_families;
  int m = 13;
  int m_3d = 6;
};

// Solves every matrix of `matrices` with and without Jacobi on the ranks, and on this rank's device alone with
// ksync::cg's `reference` form, and compares the two. The halo travels as `halo` asks.
void expect_the_one_rank_solve(ksync::cg_recurrence recurrence, ksync::cg_form reference_form,
                               ksync::mpi::halo_memory halo = ksync::mpi::halo_memory::automatic,
                               const solved_matrices& matrices = {}) {
  const auto [rank, size] = ksync::test::world();
  const Exec exec;
  for (const auto family : matrices.families) {
    const int m = family == sparse_family::poisson_3d ? matrices.m_3d : matrices.m;
    for (const auto preconditioner : {ksync::cg_preconditioner::none, ksync::cg_preconditioner::jacobi}) {
      const auto p = problem_of(family, m);
      ksync::cg_options options;
      options.tolerance = 1e-10;
      options.preconditioner = preconditioner;
      options.recurrence = recurrence;
      options.record_history = true;
      const std::int64_t first = p.partition.begin(rank);
      const std::int64_t count = p.partition.size(rank);
      const rank_part part = part_of(exec, p, rank, halo);
      Kokkos::View<double*> x("x", count);
      const ksync::cg_result result = ksync::mpi::cg(exec, MPI_COMM_WORLD, part.a, part.b, x, options);

      // The one-rank solve on this rank's device.
      const ksync::csr_matrix whole(exec, p.a);
      const auto b_all = device_copy(p.b, 0, p.a.rows);
      Kokkos::View<double*> x_all("x_all", p.a.rows);
      const ksync::cg_result reference = ksync::cg(exec, whole, b_all, x_all, reference_form, options);

      const std::string where = to_string(family) + ", " + std::string(to_string(preconditioner)) + ", " +
                                std::string(to_string(recurrence)) + ", halo " +
                                std::string(ksync::mpi::to_string(part.a.halo())) + ", rank " + std::to_string(rank) +
                                " of " + std::to_string(size);
      ksync::test::expect_the_same_solve(result, reference, options, where);
      const auto x_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
      const auto x_one = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x_all);
      ksync::test::expect_the_true_residual(p.a, p.b, x_host.data(), p.partition, options, where);  // collective
      double largest = 0;
      for (std::int64_t j = 0; j < p.a.rows; ++j)
        largest = std::max(largest, std::abs(x_one(j)));
      for (std::int64_t i = 0; i < count; ++i)
        ASSERT_NEAR(x_host(i), x_one(first + i), 1e-7 * largest) << where << ", row " << first + i;
    }
  }
}

TEST(MpiCg, EveryRankStopsWithTheOneRankSolve) {
  expect_the_one_rank_solve(ksync::cg_recurrence::classic, ksync::cg_form::host_scalars);
}

// The halo staged through pinned host memory (automatic takes the direct path on host backends).
TEST(MpiCg, AStagedHaloStopsWithTheOneRankSolve) {
  expect_the_one_rank_solve(ksync::cg_recurrence::classic, ksync::cg_form::host_scalars,
                            ksync::mpi::halo_memory::staged);
}

// The pipelined recurrence, its sums reduced while the next product runs, against ksync::cg's fused form of
// the same recurrence.
TEST(MpiCg, ThePipelinedRecurrenceStopsWithTheOneRankSolve) {
  expect_the_one_rank_solve(ksync::cg_recurrence::pipelined, ksync::cg_form::fused);
}

// Rows enough for a host lane's chunk to span many blocks (ksync::mpi::cg sums each lane's chunk in a local, in
// chains, and the pipelined pass updates it in blocks of 256 rows), and for several lanes where a rank has two
// threads or more (CTest gives each rank one: one lane): the Poisson matrices at m = 72 (5184 rows) and m = 18 in
// 3-D (5832), more than 1024 rows a rank on up to 4 ranks.
TEST(MpiCg, ManyRowsARankStopWithTheOneRankSolve) {
  constexpr sparse_family poisson[] = {sparse_family::poisson_2d, sparse_family::poisson_3d};
  const solved_matrices larger{.families = poisson, .m = 72, .m_3d = 18};
  expect_the_one_rank_solve(ksync::cg_recurrence::classic, ksync::cg_form::host_scalars,
                            ksync::mpi::halo_memory::automatic, larger);
  expect_the_one_rank_solve(ksync::cg_recurrence::pipelined, ksync::cg_form::fused, ksync::mpi::halo_memory::automatic,
                            larger);
}

// The form named: host_scalars is the solve above, to the iteration; device_scalars runs through the bridge to
// ksync::cuda::mpi::cg's NCCL form where it can (Kokkos::Cuda, the native half, NCCL, a GPU for every rank: then
// against the one-rank device_scalars solve) and stops every rank saying why where it cannot; a form ksync::mpi::cg
// does not run stops every rank too.
TEST(MpiCg, TheFormIsNamedAndDeviceScalarsGoesThroughTheBridge) {
  const auto [rank, size] = ksync::test::world();
  const Exec exec;
  const auto p = problem_of(sparse_family::poisson_2d, 13);
  const rank_part part = part_of(exec, p, rank);
  Kokkos::View<double*> x("x", p.partition.size(rank));
  ksync::cg_options options;
  options.tolerance = 1e-10;
  options.record_history = true;  // expect_the_same_solve checks it
  const ksync::cg_result plain = ksync::mpi::cg(exec, MPI_COMM_WORLD, part.a, part.b, x, options);
  Kokkos::deep_copy(x, 0.0);
  const ksync::cg_result named =
      ksync::mpi::cg(exec, MPI_COMM_WORLD, part.a, part.b, x, ksync::cg_form::host_scalars, options);
  EXPECT_EQ(named.iterations, plain.iterations);
  EXPECT_EQ(named.relative_residual, plain.relative_residual);

  const std::string why =
      ksync::mpi::detail::why_no_nccl_cg<Exec, std::int32_t, std::int32_t>(MPI_COMM_WORLD);  // collective
  Kokkos::deep_copy(x, 0.0);
  try {
    const ksync::cg_result result =
        ksync::mpi::cg(exec, MPI_COMM_WORLD, part.a, part.b, x, ksync::cg_form::device_scalars, options);
    EXPECT_TRUE(why.empty()) << "device_scalars ran where it should have been refused: " << why;
    const ksync::csr_matrix whole(exec, p.a);
    Kokkos::View<double*> x_all("x_all", p.a.rows);
    const ksync::cg_result reference =
        ksync::cg(exec, whole, device_copy(p.b, 0, p.a.rows), x_all, ksync::cg_form::device_scalars, options);
    ksync::test::expect_the_same_solve(result, reference, options, "device_scalars, rank " + std::to_string(rank));
    // The kept bridge (native twin and NCCL communicator) is keyed on comm: a solve on a duplicate of it makes
    // both again, a solve on the first comm after it makes them once more; each stops as the first did.
    MPI_Comm duplicate = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &duplicate);
    for (const MPI_Comm comm : {duplicate, MPI_COMM_WORLD}) {
      Kokkos::deep_copy(x, 0.0);
      const ksync::cg_result again =
          ksync::mpi::cg(exec, comm, part.a, part.b, x, ksync::cg_form::device_scalars, options);
      EXPECT_EQ(again.iterations, result.iterations) << "rank " << rank;
    }
    MPI_Comm_free(&duplicate);
#if KSYNC_NATIVE_BRIDGE
    // A rank whose CUDA call fails inside the NCCL form stops every rank; where it came inside the iterations
    // every rank aborted the kept communicator, and the next solve makes it again and stops as the first did.
    for (const int nth : {61, 120}) {
      Kokkos::deep_copy(x, 0.0);
      if (rank == size - 1) ksync::cuda::fail_cuda_call_after(nth);
      try {
        (void)ksync::mpi::cg(exec, MPI_COMM_WORLD, part.a, part.b, x, ksync::cg_form::device_scalars, options);
        ADD_FAILURE() << "no exception for a failure at call " << nth;
      } catch (const ksync::mpi::collective_error& error) {
        EXPECT_EQ(error.failing_rank(), size - 1) << error.what();
      }
      ksync::cuda::fail_cuda_call_after(0);
      Kokkos::deep_copy(x, 0.0);
      const ksync::cg_result after =
          ksync::mpi::cg(exec, MPI_COMM_WORLD, part.a, part.b, x, ksync::cg_form::device_scalars, options);
      EXPECT_EQ(after.iterations, result.iterations) << "after a failure at call " << nth << ", rank " << rank;
    }
#endif
  } catch (const ksync::mpi::collective_error& error) {
    EXPECT_FALSE(why.empty()) << error.what();
    EXPECT_NE(std::string(error.what()).find("ksync::mpi::cg: rank 0 of " + std::to_string(size) + ": " + why),
              std::string::npos)
        << error.what();
  }
  try {
    (void)ksync::mpi::cg(exec, MPI_COMM_WORLD, part.a, part.b, x, ksync::cg_form::fused, options);
    ADD_FAILURE() << "no exception for form = fused";
  } catch (const ksync::mpi::collective_error& error) {
    EXPECT_NE(
        std::string(error.what()).find("form = fused is not one of ksync::mpi::cg's (host_scalars, device_scalars)"),
        std::string::npos)
        << error.what();
  }
}

// Options that differ between ranks, a wrong extent on one rank, or a diagonal Jacobi cannot use stop every
// rank with the message, before any rank iterates.
TEST(MpiCg, BadInputOnOneRankStopsEveryRank) {
  const auto [rank, size] = ksync::test::world();
  const Exec exec;
  const auto p = problem_of(sparse_family::poisson_2d, 6);
  const std::int64_t first = p.partition.begin(rank);
  const std::int64_t count = p.partition.size(rank);
  const rank_part part = part_of(exec, p, rank);
  const auto& a = part.a;
  const auto& b = part.b;
  const int faulty = size - 1;
  const auto refuses = [&](const auto& call, const std::string& text) {
    try {
      call();
    } catch (const ksync::mpi::collective_error& error) {
      const bool names_it = std::string(error.what()).find(text) != std::string::npos;
      EXPECT_TRUE(names_it) << error.what();
      return names_it;
    }
    ADD_FAILURE() << "no exception for " << text;
    return false;
  };
  Kokkos::View<double*> x("x", count + (rank == faulty ? 1 : 0));
  EXPECT_TRUE(
      refuses([&] { (void)ksync::mpi::cg(exec, MPI_COMM_WORLD, a, b, x); },
              "ksync::mpi::cg: rank " + std::to_string(faulty) + " of " + std::to_string(size) + ": x.extent(0)"));
  Kokkos::View<double*> x_fits("x", count);
  ksync::cg_options options;
  options.max_iterations = rank == faulty ? 20 : 10;
  if (size > 1) {
    EXPECT_TRUE(
        refuses([&] { (void)ksync::mpi::cg(exec, MPI_COMM_WORLD, a, b, x_fits, options); }, "options.max_iterations"));
  }
  ksync::cg_options recurrence;
  recurrence.recurrence = rank == faulty ? ksync::cg_recurrence::pipelined : ksync::cg_recurrence::classic;
  if (size > 1) {
    EXPECT_TRUE(
        refuses([&] { (void)ksync::mpi::cg(exec, MPI_COMM_WORLD, a, b, x_fits, recurrence); }, "options.recurrence"));
  }
  // The pipelined pass updates x through a pointer: a strided x is refused on the rank that passed it.
  Kokkos::View<double**, Kokkos::LayoutRight> columns("columns", count, 2);
  const auto strided = Kokkos::subview(columns, Kokkos::ALL, 1);
  ksync::cg_options pipelined;
  pipelined.recurrence = ksync::cg_recurrence::pipelined;
  EXPECT_TRUE(refuses([&] { (void)ksync::mpi::cg(exec, MPI_COMM_WORLD, a, b, strided, pipelined); },
                      "options.recurrence = pipelined needs a contiguous x"));
  // A matrix with a zero on the diagonal of the last row: Jacobi refuses it on every rank, x left as it was.
  matrix zero_diagonal = p.a;
  for (auto k = zero_diagonal.row_offsets[zero_diagonal.rows - 1]; k < zero_diagonal.row_offsets[zero_diagonal.rows];
       ++k)
    if (zero_diagonal.columns[k] == zero_diagonal.rows - 1) zero_diagonal.values[k] = 0.0;
  const ksync::mpi::distributed_csr singular(exec, MPI_COMM_WORLD, p.partition,
                                             rows_of(zero_diagonal, first, first + count));
  ksync::cg_options jacobi;
  jacobi.preconditioner = ksync::cg_preconditioner::jacobi;
  EXPECT_THROW((void)ksync::mpi::cg(exec, MPI_COMM_WORLD, singular, b, x_fits, jacobi), std::invalid_argument);
}

// A rank whose own work throws mid-solve (in the product, in a vector update, in the setup) leaves no rank
// waiting: every rank throws collective_error at the next global sum, naming that rank and its message, and
// the communicator stays usable (a solve right after it converges on every rank). The pipelined product that
// fails (the 6th interior kernel: iteration 3's) runs while that iteration's sums are in flight.
TEST(MpiCg, ARankThatFailsMidSolveStopsEveryRank) {
  const auto [rank, size] = ksync::test::world();
  const Exec exec;
  const auto p = problem_of(sparse_family::poisson_2d, 13);
  const rank_part part = part_of(exec, p, rank);
  const auto& a = part.a;
  const auto& b = part.b;
  Kokkos::View<double*> x("x", p.partition.size(rank));
  const int faulty = size - 1;
  struct fault {
    ksync::cg_recurrence recurrence;
    ksync::cg_preconditioner preconditioner;
    const char* label;
    int nth;
  };
  constexpr auto classic = ksync::cg_recurrence::classic;
  constexpr auto pipelined = ksync::cg_recurrence::pipelined;
  constexpr auto none = ksync::cg_preconditioner::none;
  constexpr auto jacobi = ksync::cg_preconditioner::jacobi;
  const fault faults[] = {
      {.recurrence = classic, .preconditioner = none, .label = "ksync::mpi::cg::update", .nth = 4},
      {.recurrence = classic, .preconditioner = none, .label = "ksync::mpi::spmv::interior", .nth = 5},
      {.recurrence = classic, .preconditioner = jacobi, .label = "ksync::mpi::cg::direction", .nth = 3},
      {.recurrence = classic, .preconditioner = jacobi, .label = "ksync::mpi::cg::inverse_diagonal", .nth = 1},
      {.recurrence = pipelined, .preconditioner = none, .label = "ksync::mpi::cg::pipelined_pass", .nth = 4},
      {.recurrence = pipelined, .preconditioner = jacobi, .label = "ksync::mpi::spmv::interior", .nth = 6},
      {.recurrence = pipelined, .preconditioner = none, .label = "ksync::mpi::cg::start", .nth = 1}};
  for (const fault& f : faults) {
    ksync::cg_options options;
    options.tolerance = 1e-10;
    options.recurrence = f.recurrence;
    options.preconditioner = f.preconditioner;
    const std::string where = std::string(f.label) + " (" + std::string(to_string(f.recurrence)) + ", " +
                              std::string(to_string(f.preconditioner)) + "), rank " + std::to_string(rank) + " of " +
                              std::to_string(size);
    Kokkos::deep_copy(x, 0.0);
    try {
      std::optional<ksync::test::failure_at_kernel> injected;
      if (rank == faulty) injected.emplace(f.label, f.nth);
      (void)ksync::mpi::cg(exec, MPI_COMM_WORLD, a, b, x, options);
      ADD_FAILURE() << "no exception: " << where;
    } catch (const ksync::mpi::collective_error& error) {
      EXPECT_EQ(error.failing_rank(), faulty) << where;
      const std::string text = error.what();
      EXPECT_NE(text.find("ksync::mpi::cg: rank " + std::to_string(faulty) + " of " + std::to_string(size)),
                std::string::npos)
          << text;
      EXPECT_NE(text.find(std::string("injected failure in ") + f.label), std::string::npos) << text;
    }
    Kokkos::deep_copy(x, 0.0);
    const ksync::cg_result after = ksync::mpi::cg(exec, MPI_COMM_WORLD, a, b, x, options);
    EXPECT_TRUE(after.converged) << "the solve after the failure, " << where;
  }
}

}  // namespace
