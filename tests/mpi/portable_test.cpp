// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::mpi on every rank of MPI_COMM_WORLD (CTest runs it with 2 ranks): the distributed reduce, the
// element-wise all-reduce and the distributed pipeline against host references that every rank computes
// for the whole job, and the collective errors — a mistake on one rank makes every rank throw, none hangs.
#include "../support/functors.hpp"

#include <ksync/mpi.hpp>

#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using ksync::reduce_op;
using Exec = Kokkos::DefaultExecutionSpace;

int world_rank() {
  return ksync::mpi::rank_of(MPI_COMM_WORLD);
}
int world_size() {
  return ksync::mpi::size_of(MPI_COMM_WORLD);
}

// Rank r holds 1000 * r + 17 elements (rank 0: 17), value(global index) below.
std::size_t part_size(int rank) {
  return std::size_t{1000} * static_cast<std::size_t>(rank) + 17;
}
std::int64_t value_at(std::size_t global) {
  return static_cast<std::int64_t>((global * 7919) % 10'007) - 5'000;
}

TEST(MpiReduce, EveryRankGetsTheGlobalValueOfEveryOperator) {
  const int rank = world_rank();
  std::size_t offset = 0;
  for (int r = 0; r < rank; ++r)
    offset += part_size(r);
  Kokkos::View<std::int64_t*> data("data", part_size(rank));
  auto host = Kokkos::create_mirror_view(data);
  for (std::size_t i = 0; i < host.extent(0); ++i)
    host(i) = value_at(offset + i);
  Kokkos::deep_copy(data, host);
  std::vector<std::int64_t> all;
  for (int r = 0, global = 0; r < world_size(); ++r)
    for (std::size_t i = 0; i < part_size(r); ++i)
      all.push_back(value_at(static_cast<std::size_t>(global++)));
  std::int64_t sum = 0;
  for (const auto v : all)
    sum += v;
  const Exec exec;
  EXPECT_EQ(ksync::mpi::reduce(exec, MPI_COMM_WORLD, data), sum);
  EXPECT_EQ(ksync::mpi::reduce(exec, MPI_COMM_WORLD, data, reduce_op::min), *std::ranges::min_element(all));
  EXPECT_EQ(ksync::mpi::reduce(exec, MPI_COMM_WORLD, data, reduce_op::max), *std::ranges::max_element(all));
}

TEST(MpiReduce, AnEmptyPartIsFine) {
  Kokkos::View<double*> data("data", world_rank() == 0 ? 0 : 4);
  Kokkos::deep_copy(data, 1.5);
  EXPECT_EQ(ksync::mpi::reduce(Exec(), MPI_COMM_WORLD, data), 6.0 * (world_size() - 1));
}

// data(i) = rank + i on the device (a free function: CUDA lambdas cannot live in a test's private body).
void fill_rank_plus_index(const Kokkos::View<double*>& data, int rank) {
  Kokkos::parallel_for(
      "ksync::test::fill", Kokkos::RangePolicy<Exec>(0, data.extent(0)),
      KOKKOS_LAMBDA(std::size_t i) { data(i) = rank + static_cast<double>(i); });
}

TEST(MpiAllReduce, ElementWiseSumOverRanks) {
  const std::size_t n = 1000;
  Kokkos::View<double*> data("data", n);
  fill_rank_plus_index(data, world_rank());
  ksync::mpi::all_reduce(Exec(), MPI_COMM_WORLD, data);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), data);
  const int size = world_size();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
    wrong += host(i) == size * (size - 1) / 2.0 + size * static_cast<double>(i) ? 0 : 1;
  EXPECT_EQ(wrong, 0u);
}

TEST(MpiAllReduce, MismatchedExtentsStopEveryRank) {
  if (world_size() < 2) GTEST_SKIP() << "ksync-skip: needs 2 MPI ranks";
  Kokkos::View<float*> data("data", 10 + static_cast<std::size_t>(world_rank()));
  try {
    ksync::mpi::all_reduce(Exec(), MPI_COMM_WORLD, data);
    ADD_FAILURE() << "no exception on rank " << world_rank();
  } catch (const ksync::mpi::collective_error& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.failing_rank(), 0);
    EXPECT_NE(message.find("data.extent(0) = 10"), std::string::npos) << message;
    EXPECT_NE(message.find("[10, " + std::to_string(9 + world_size()) + "]"), std::string::npos) << message;
  }
}

TEST(MpiCollective, OneRanksFailureReachesEveryRank) {
  if (world_size() < 2) GTEST_SKIP() << "ksync-skip: needs 2 MPI ranks";
  const int rank = world_rank();
  try {
    ksync::mpi::check_collectively(MPI_COMM_WORLD, rank != 1, "test", "rank one objects");
    ADD_FAILURE() << "no exception on rank " << rank;
  } catch (const ksync::mpi::collective_error& error) {
    EXPECT_EQ(error.failing_rank(), 1);
    EXPECT_EQ(std::string(error.what()), "test: rank 1 of " + std::to_string(world_size()) + ": rank one objects");
  }
}

TEST(MpiPipeline, EveryRankTransformsItsShare) {
  const std::size_t n = 100'003 + static_cast<std::size_t>(world_rank());
  Kokkos::View<float*, Kokkos::HostSpace> in("in", n);
  Kokkos::View<float*, Kokkos::HostSpace> out("out", n);
  for (std::size_t i = 0; i < n; ++i)
    in(i) = static_cast<float>(i % 512) + static_cast<float>(world_rank());
  const double seconds = ksync::mpi::pipeline(Exec(), MPI_COMM_WORLD, in, out, n, ksync::test::TwiceAndOne{},
                                              {.chunk_elements = 4096, .streams = 2});
  EXPECT_GT(seconds, 0.0);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
    wrong += out(i) == ksync::test::TwiceAndOne{}(in(i)) ? 0 : 1;
  EXPECT_EQ(wrong, 0u);
}

TEST(MpiPipeline, AConfigurationThatDiffersAcrossRanksStopsEveryRank) {
  if (world_size() < 2) GTEST_SKIP() << "ksync-skip: needs 2 MPI ranks";
  Kokkos::View<float*, Kokkos::HostSpace> in("in", 64);
  Kokkos::View<float*, Kokkos::HostSpace> out("out", 64);
  const int streams = world_rank() == 0 ? 2 : 4;
  EXPECT_THROW(ksync::mpi::pipeline(Exec(), MPI_COMM_WORLD, in, out, 64, ksync::test::TwiceAndOne{},
                                    {.chunk_elements = 16, .streams = streams}),
               ksync::mpi::collective_error);
  // One rank's own bad argument (n larger than its Views) also stops the others.
  const std::size_t n = world_rank() == 1 ? 65 : 64;
  try {
    (void)ksync::mpi::pipeline(Exec(), MPI_COMM_WORLD, in, out, n, ksync::test::TwiceAndOne{},
                               {.chunk_elements = 16, .streams = 2});
    ADD_FAILURE() << "no exception on rank " << world_rank();
  } catch (const ksync::mpi::collective_error& error) {
    EXPECT_EQ(error.failing_rank(), 1);
    EXPECT_NE(std::string(error.what()).find("fewer than n = 65"), std::string::npos) << error.what();
  }
}

}  // namespace
