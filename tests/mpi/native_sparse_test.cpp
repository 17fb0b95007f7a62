// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::mpi::spmv and ksync::cuda::mpi::cg (ksync/cuda/mpi/) on however many ranks mpiexec starts
// (CTest: 1, 2 and 3), the ranks sharing the GPUs there are (rank r takes GPU r mod the visible count): each rank
// holds its block of rows of a generated matrix on its GPU. The product must give the one-GPU
// ksync::cuda::spmv rows bit for bit and x's ghosts the other ranks' entries; the solve must stop within one
// iteration of the one-GPU ksync::cuda::cg of the same recurrence with a solution as close as the tolerance
// allows; bad input on one rank stops every rank. Without a GPU every test skips.
#include "../support/sparse.hpp"
#include "gpu_ranks.hpp"
#include "native_ranks.hpp"
#include "solve_checks.hpp"
#include "world.hpp"

#include <ksync/cuda/csr_matrix.hpp>
#include <ksync/cuda/device/cg.hpp>
#include <ksync/cuda/device/spmv.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/mpi/cg.hpp>
#include <ksync/cuda/mpi/spmv.hpp>
#include <ksync/cuda/node/mpi.hpp>
#include <ksync/cuda/node/nccl.hpp>
#include <ksync/cuda/runtime.hpp>
#include <ksync/cuda/stream.hpp>
#include <ksync/mpi/device_memory.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace ksync::test::native_ranks;

TEST(MpiNativeSpmv, EveryRankGivesTheOneGpuRowsBitForBit) {
  KSYNC_NEEDS_A_GPU();
  const ksync::cuda::stream first_stream;
  const ksync::cuda::stream second_stream;
  for (const halo_memory halo : halo_paths()) {
    for (const auto family : ksync::test::all_sparse_families) {
      const rank_block block(
          ksync::test::generate<double, std::int32_t>(family, family == sparse_family::poisson_3d ? 5 : 11), halo);
      EXPECT_EQ(block.part.halo(), halo);
      const ksync::halo_plan& plan = block.part.plan();
      // Two products, the second with another x on another stream: the matrix keeps its buffers and events.
      for (int round = 0; round < 2; ++round) {
        const cudaStream_t stream = round == 0 ? first_stream.get() : second_stream.get();
        const std::vector<double> x_global = global_x(block.a.cols, round);
        const auto x = block.local_x(x_global);
        const ksync::cuda::device_buffer<double> y(static_cast<std::size_t>(plan.owned));
        ksync::cuda::mpi::spmv(stream, MPI_COMM_WORLD, block.part, x.data(), y.data());
        const std::string where = to_string(family) + ", halo " + std::string(ksync::mpi::to_string(halo)) + ", " +
                                  rank_text() + ", round " + std::to_string(round);
        block.expect_the_one_gpu_rows(stream, y, x_global, where);
        const auto x_after = x.to_host();
        const auto ghosts = static_cast<std::int64_t>(plan.ghosts.size());
        EXPECT_EQ(
            first_where(ghosts, [&](std::int64_t g) { return x_after[plan.owned + g] != x_global[plan.ghosts[g]]; }),
            ghosts)
            << where << ": the first wrong ghost";
      }
    }
  }
}

// The solvers' product (detail::spmv_unchecked with ghost_destination::where_they_arrive) has the boundary rows
// read the ghosts where they arrived (staged: pinned memory; peer: the peer buffer) instead of copying them into x:
// the same rows bit for bit, x's ghosts left as they were.
TEST(MpiNativeSpmv, TheSolversProductReadsGhostsWhereTheyArrived) {
  KSYNC_NEEDS_A_GPU();
  const ksync::cuda::stream stream;
  for (const halo_memory halo : {halo_memory::staged, halo_memory::peer})
    for (const auto family : {sparse_family::poisson_2d, sparse_family::random_laplacian}) {
      const rank_block block(ksync::test::generate<double, std::int32_t>(family, 11), halo);
      const std::vector<double> x_global = global_x(block.a.cols, 0);
      const auto x = block.local_x(x_global);
      const ksync::cuda::device_buffer<double> y(static_cast<std::size_t>(block.part.owned_rows()));
      ksync::mpi::detail::local_failure failure;
      ksync::cuda::mpi::detail::spmv_unchecked(stream.get(), MPI_COMM_WORLD, block.part, x.data(), y.data(), failure,
                                               ksync::mpi::detail::ghost_destination::where_they_arrive);
      failure.rethrow_here();
      const std::string where =
          to_string(family) + ", halo " + std::string(ksync::mpi::to_string(halo)) + ", " + rank_text();
      block.expect_the_one_gpu_rows(stream.get(), y, x_global, where);
      const auto x_after = x.to_host();
      const std::int64_t owned = block.part.owned_rows();
      const std::int64_t ghosts = block.part.local_columns() - owned;
      EXPECT_EQ(first_where(ghosts, [&](std::int64_t g) { return !std::isnan(x_after[owned + g]); }), ghosts)
          << where << ": the first ghost written into x";
    }
}

// One staged or peer matrix takes products that alternate where the ghosts go (copied into x, or read where they
// arrived), each with another x: every product gives the one-GPU rows, so neither destination leaves ghosts or
// events behind that the other misreads.
TEST(MpiNativeSpmv, ProductsThatAlternateTheGhostDestinationGiveTheOneGpuRows) {
  KSYNC_NEEDS_A_GPU();
  using ksync::mpi::detail::ghost_destination;
  const ksync::cuda::stream stream;
  for (const halo_memory halo : {halo_memory::staged, halo_memory::peer}) {
    const rank_block block(ksync::test::generate<double, std::int32_t>(sparse_family::random_laplacian, 11), halo);
    const ghost_destination order[] = {ghost_destination::x, ghost_destination::where_they_arrive,
                                       ghost_destination::where_they_arrive, ghost_destination::x};
    for (int round = 0; round < 4; ++round) {
      const ghost_destination destination = order[round];
      const std::string where =
          "halo " + std::string(ksync::mpi::to_string(halo)) + ", " + rank_text() + ", round " + std::to_string(round);
      const std::vector<double> x_global = global_x(block.a.cols, round);
      const auto x = block.local_x(x_global);
      const ksync::cuda::device_buffer<double> y(static_cast<std::size_t>(block.part.owned_rows()));
      ksync::mpi::detail::local_failure failure;
      ksync::cuda::mpi::detail::spmv_unchecked(stream.get(), MPI_COMM_WORLD, block.part, x.data(), y.data(), failure,
                                               destination);
      failure.rethrow_here();
      block.expect_the_one_gpu_rows(stream.get(), y, x_global, where);
    }
  }
}

// A null or host x on one rank, or rows that do not match the partition, stop every rank with the message
// before any rank sends; so does a direct halo the MPI cannot read.
TEST(MpiNativeSpmv, BadArgumentsOnOneRankStopEveryRank) {
  KSYNC_NEEDS_A_GPU();
  const auto [rank, size] = ksync::test::world();
  const int faulty = size - 1;
  const rank_block block(ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 6));
  const ksync::cuda::stream stream;
  const ksync::cuda::device_buffer<double> x(static_cast<std::size_t>(block.part.local_columns()));
  const ksync::cuda::device_buffer<double> y(static_cast<std::size_t>(block.part.owned_rows()));
  std::vector<double> host_x(static_cast<std::size_t>(block.part.local_columns()));
  const auto refuses = [&](double* x_here, const std::string& text) {
    try {
      ksync::cuda::mpi::spmv(stream.get(), MPI_COMM_WORLD, block.part, x_here, y.data());
      ADD_FAILURE() << "no exception for " << text;
    } catch (const ksync::mpi::collective_error& error) {
      EXPECT_EQ(error.failing_rank(), faulty);
      EXPECT_NE(std::string(error.what()).find(text), std::string::npos) << error.what();
    }
  };
  const std::string prefix = "ksync::cuda::mpi::spmv: rank " + std::to_string(faulty) + " of " + std::to_string(size);
  refuses(rank == faulty ? nullptr : x.data(), prefix + ": x is null");
  refuses(rank == faulty ? host_x.data() : x.data(), "x = ");
  refuses(rank == faulty ? host_x.data() : x.data(), "is host memory unknown to CUDA");
  const auto& partition = block.partition;
  const std::int64_t last = partition.end(rank) - (rank == faulty && partition.size(rank) > 0 ? 1 : 0);
  EXPECT_THROW(distributed(MPI_COMM_WORLD, partition, rows_of(block.a, partition.begin(rank), last)),
               ksync::mpi::collective_error);
  if (!ksync::mpi::reads_cuda_memory()) {
    expect_refused([&] { const rank_block direct(block.a, halo_memory::direct); },
                   "halo = direct, but this MPI does not read CUDA device memory");
  }
}

// Solves every generated family with and without Jacobi on the ranks (through `nccl` where given: the form whose
// scalars stay on the GPUs), and on this rank's GPU alone with ksync::cuda::cg's `reference` form, and compares
// the two.
void expect_the_one_gpu_solve(ksync::cg_recurrence recurrence, ksync::cg_form reference_form, halo_memory halo,
                              ksync::cuda::node::nccl_communicator* nccl = nullptr) {
  const ksync::cuda::stream stream;
  for (const auto family : ksync::test::all_sparse_families) {
    const int m = family == sparse_family::poisson_3d ? 6 : 13;
    for (const auto preconditioner : {ksync::cg_preconditioner::none, ksync::cg_preconditioner::jacobi}) {
      const rank_block block(ksync::test::generate<double, std::int32_t>(family, m), halo);
      const std::vector<double> b = ksync::test::sparse_right_hand_side<double>(block.a.rows, 7);
      ksync::cg_options options;
      options.tolerance = 1e-10;
      options.preconditioner = preconditioner;
      options.recurrence = recurrence;
      options.record_history = true;
      options.check_every = 4;  // the NCCL form's batches: a few past convergence, none past max_iterations
      const std::int64_t count = block.part.owned_rows();
      const ksync::cuda::device_buffer<double> b_rows(
          std::vector<double>(b.begin() + block.first, b.begin() + block.first + count));
      const auto& part = block.part;
      const ksync::cg_result result =
          nccl == nullptr
              ? ksync::cuda::mpi::cg(stream.get(), MPI_COMM_WORLD, part, b_rows.data(), block.x.data(), options)
              : ksync::cuda::mpi::cg(stream.get(), MPI_COMM_WORLD, *nccl, part, b_rows.data(), block.x.data(), options);

      const whole_matrix whole(stream.get(), block.a);
      const ksync::cuda::device_buffer<double> b_all(b);
      const ksync::cuda::device_buffer<double> x_all(std::vector<double>(b.size(), 0.0));
      const ksync::cg_result reference = ksync::cuda::cg(
          stream.get(), whole.a, static_cast<const double*>(b_all.data()), x_all.data(), reference_form, options);
      EXPECT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
      const std::string where = to_string(family) + ", " + std::string(to_string(preconditioner)) + ", " +
                                std::string(to_string(recurrence)) + ", halo " +
                                std::string(ksync::mpi::to_string(part.halo())) + ", " + rank_text();
      ksync::test::expect_the_same_solve(result, reference, options, where);
      const auto x_host = block.x.to_host();
      const auto x_one = x_all.to_host();
      double largest = 0;
      for (const double entry : x_one)
        largest = std::max(largest, std::abs(entry));
      EXPECT_EQ(
          first_where(
              count, [&](std::int64_t i) { return !(std::abs(x_host[i] - x_one[block.first + i]) <= 1e-7 * largest); }),
          count)
          << where << ": the first row further than 1e-7 of the largest entry from the one-GPU x";
      ksync::test::expect_the_true_residual(block.a, b, x_host.data(), block.partition, options, where);
    }
  }
}

TEST(MpiNativeCg, EveryRankStopsWithTheOneGpuSolve) {
  KSYNC_NEEDS_A_GPU();
  for (const halo_memory halo : halo_paths())
    expect_the_one_gpu_solve(ksync::cg_recurrence::classic, ksync::cg_form::host_scalars, halo);
}

// The pipelined recurrence, its sums reduced while the next product runs, against ksync::cuda::cg's fused form
// of the same recurrence.
TEST(MpiNativeCg, ThePipelinedRecurrenceStopsWithTheOneGpuSolve) {
  KSYNC_NEEDS_A_GPU();
  for (const halo_memory halo : halo_paths())
    expect_the_one_gpu_solve(ksync::cg_recurrence::pipelined, ksync::cg_form::fused, halo);
}

// The classic recurrence with its scalars on the GPUs (NCCL: halo, sums and scalar steps on the streams) against
// ksync::cuda::cg's device_scalars form; a pipelined recurrence is refused there on every rank. NCCL takes one GPU a
// rank: with fewer GPUs than ranks on a node this skips.
TEST(MpiNativeCg, TheNcclFormStopsWithTheOneGpuSolve) {
  if (!ksync::test::every_rank_has_a_gpu()) GTEST_SKIP() << "ksync-skip: the NCCL form needs a CUDA GPU for every rank";
  if (!ksync::cuda::node::has_nccl()) GTEST_SKIP() << "ksync-skip: this build has no NCCL";
  (void)ksync::cuda::mpi::select_device(MPI_COMM_WORLD);
  auto nccl = ksync::cuda::mpi::make_nccl_communicator(MPI_COMM_WORLD);
  expect_the_one_gpu_solve(ksync::cg_recurrence::classic, ksync::cg_form::device_scalars, halo_memory::automatic,
                           &nccl);
  const rank_block block(ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 6));
  const ksync::cuda::stream stream;
  ksync::cg_options pipelined;
  pipelined.recurrence = ksync::cg_recurrence::pipelined;
  expect_refused(
      [&] {
        (void)ksync::cuda::mpi::cg(stream.get(), MPI_COMM_WORLD, nccl, block.part, block.b.data(), block.x.data(),
                                   pipelined);
      },
      "the NCCL form runs the classic recurrence");
}

// A rank whose own CUDA call fails in the NCCL form (ksync::cuda::fail_cuda_call_after, at several depths) stops
// every rank with collective_error naming it. Inside the iterations, where the others' GPUs wait in NCCL for it,
// it raises the alarm and every rank aborts its communicator, which is refused afterwards while a new one solves;
// before them (the checks, the work vectors) the communicator stays whole. With fewer GPUs than ranks on a node
// this skips (NCCL takes one GPU a rank).
TEST(MpiNativeCg, ARankThatFailsInTheNcclFormStopsEveryRank) {
  if (!ksync::test::every_rank_has_a_gpu()) GTEST_SKIP() << "ksync-skip: the NCCL form needs a CUDA GPU for every rank";
  if (!ksync::cuda::node::has_nccl()) GTEST_SKIP() << "ksync-skip: this build has no NCCL";
  (void)ksync::cuda::mpi::select_device(MPI_COMM_WORLD);
  const auto [rank, size] = ksync::test::world();
  const int faulty = size - 1;
  const rank_block block(ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 13));
  const ksync::cuda::stream stream;
  ksync::cg_options options;
  options.tolerance = 1e-10;
  options.check_every = 4;
  const auto solve = [&](ksync::cuda::node::nccl_communicator& nccl) {
    EXPECT_EQ(cudaMemset(block.x.data(), 0, block.x.size() * sizeof(double)), cudaSuccess);
    return ksync::cuda::mpi::cg(stream.get(), MPI_COMM_WORLD, nccl, block.part, block.b.data(), block.x.data(),
                                options);
  };
  int inside_the_iterations = 0;
  for (const int nth : {9, 23, 61, 120}) {
    const std::string where = "call " + std::to_string(nth) + ", " + rank_text();
    auto nccl = ksync::cuda::mpi::make_nccl_communicator(MPI_COMM_WORLD);
    if (rank == faulty) ksync::cuda::fail_cuda_call_after(nth);
    try {
      (void)solve(nccl);
      ADD_FAILURE() << "no exception: " << where;
    } catch (const ksync::mpi::collective_error& error) {
      EXPECT_EQ(error.failing_rank(), faulty) << where;
      EXPECT_NE(std::string(error.what()).find("cudaErrorLaunchFailure"), std::string::npos) << error.what();
    }
    ksync::cuda::fail_cuda_call_after(0);
    if (nccl.aborted()) {  // on every rank alike
      ++inside_the_iterations;
      expect_refused([&] { (void)solve(nccl); }, "nccl was aborted");
      auto fresh = ksync::cuda::mpi::make_nccl_communicator(MPI_COMM_WORLD);
      EXPECT_TRUE(solve(fresh).converged) << "the solve on a new communicator, " << where;
    } else {
      EXPECT_TRUE(solve(nccl).converged) << "the solve after the failure, " << where;
    }
  }
  EXPECT_GE(inside_the_iterations, 2) << "too few of the failures reached the iterations";
}

// A rank whose own CUDA call fails mid-solve (ksync::cuda::fail_cuda_call_after, at several depths: the start, the
// first iterations, later ones) leaves no rank waiting: every rank throws collective_error at the next global sum,
// naming that rank and its error, and the next solve converges on every rank. Both recurrences.
TEST(MpiNativeCg, ARankThatFailsMidSolveStopsEveryRank) {
  KSYNC_NEEDS_A_GPU();
  const auto [rank, size] = ksync::test::world();
  const int faulty = size - 1;
  const rank_block block(ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 13));
  const auto& part = block.part;
  const auto& b = block.b;
  const auto& x = block.x;
  const ksync::cuda::stream stream;
  for (const auto recurrence : {ksync::cg_recurrence::classic, ksync::cg_recurrence::pipelined}) {
    for (const int nth : {9, 23, 61}) {
      ksync::cg_options options;
      options.tolerance = 1e-10;
      options.recurrence = recurrence;
      const std::string where =
          std::string(to_string(recurrence)) + ", call " + std::to_string(nth) + ", " + rank_text();
      EXPECT_EQ(cudaMemset(x.data(), 0, x.size() * sizeof(double)), cudaSuccess);
      if (rank == faulty) ksync::cuda::fail_cuda_call_after(nth);
      try {
        (void)ksync::cuda::mpi::cg(stream.get(), MPI_COMM_WORLD, part, b.data(), x.data(), options);
        ADD_FAILURE() << "no exception: " << where;
      } catch (const ksync::mpi::collective_error& error) {
        EXPECT_EQ(error.failing_rank(), faulty) << where;
        EXPECT_NE(std::string(error.what()).find("cudaErrorLaunchFailure"), std::string::npos) << error.what();
      }
      ksync::cuda::fail_cuda_call_after(0);
      EXPECT_EQ(cudaMemset(x.data(), 0, x.size() * sizeof(double)), cudaSuccess);
      const ksync::cg_result after =
          ksync::cuda::mpi::cg(stream.get(), MPI_COMM_WORLD, part, b.data(), x.data(), options);
      EXPECT_TRUE(after.converged) << "the solve after the failure, " << where;
    }
  }
}

// Options that differ between ranks or a null b on one rank stop every rank with the message before any rank
// iterates; a diagonal Jacobi cannot use is refused on every rank, x left as it was.
TEST(MpiNativeCg, BadInputOnOneRankStopsEveryRank) {
  KSYNC_NEEDS_A_GPU();
  const auto [rank, size] = ksync::test::world();
  const int faulty = size - 1;
  const ksync::cuda::stream stream;
  const rank_block block(ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 6));
  const auto& part = block.part;
  const auto& b = block.b;
  const auto& x = block.x;
  const auto refuses = [&](const double* b_here, const ksync::cg_options& options, const std::string& text) {
    expect_refused([&] { (void)ksync::cuda::mpi::cg(stream.get(), MPI_COMM_WORLD, part, b_here, x.data(), options); },
                   text);
  };
  refuses(rank == faulty ? nullptr : b.data(), {},
          "ksync::cuda::mpi::cg: rank " + std::to_string(faulty) + " of " + std::to_string(size) + ": b is null");
  if (size > 1) {
    ksync::cg_options options;
    options.max_iterations = rank == faulty ? 20 : 10;
    refuses(b.data(), options, "options.max_iterations");
  }
  // A zero on the diagonal of the last row: Jacobi refuses it on every rank.
  matrix a = block.a;
  for (auto k = a.row_offsets[a.rows - 1]; k < a.row_offsets[a.rows]; ++k)
    if (a.columns[k] == a.rows - 1) a.values[k] = 0.0;
  const distributed singular(MPI_COMM_WORLD, block.partition, rows_of(a, block.first, block.first + part.owned_rows()));
  ksync::cg_options jacobi;
  jacobi.preconditioner = ksync::cg_preconditioner::jacobi;
  EXPECT_THROW((void)ksync::cuda::mpi::cg(stream.get(), MPI_COMM_WORLD, singular, b.data(), x.data(), jacobi),
               std::invalid_argument);
  for (const double entry : x.to_host())
    EXPECT_EQ(entry, 0.0);
}

}  // namespace
