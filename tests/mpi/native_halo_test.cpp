// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::mpi::spmv's halo under stress, on however many ranks mpiexec starts (CTest: 1, 2 and 3): products
// enqueued back to back with x overwritten between them, products whose captured graphs meet new vectors, and a
// rank whose CUDA calls fail one after another in a product while the others finish theirs. Every halo path this
// MPI allows, peer included. Without a GPU every test skips.
#include "native_ranks.hpp"

#include <ksync/cuda/error.hpp>
#include <ksync/cuda/mpi/spmv.hpp>
#include <ksync/cuda/stream.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace ksync::test::native_ranks;

// Products enqueued back to back on one stream, the host never waiting for the GPU between them: one x overwritten
// on the stream before each product, a y for each. Every y must be its own x's rows: a product whose pack read x
// before the overwrite, or whose pushes overwrote a neighbour's ghosts before that neighbour's last boundary rows
// read them, gives another round's rows. With a peer halo six ys are more keys than the captured products keep, so
// the oldest graphs are destroyed while products are still in flight.
TEST(MpiNativeSpmv, ProductsEnqueuedBackToBackEachReadTheirOwnX) {
  KSYNC_NEEDS_A_GPU();
  const ksync::cuda::stream stream;
  constexpr int rounds = 6;
  for (const halo_memory halo : halo_paths()) {
    const rank_block block(ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 40), halo);
    const std::int64_t owned = block.part.owned_rows();
    std::vector<std::vector<double>> x_globals;
    std::vector<ksync::cuda::device_buffer<double>> x_rounds;
    std::vector<ksync::cuda::device_buffer<double>> ys;
    for (int round = 0; round < rounds; ++round) {
      x_globals.push_back(global_x(block.a.cols, round));
      x_rounds.push_back(block.local_x(x_globals.back()));
      ys.emplace_back(static_cast<std::size_t>(owned));
    }
    const ksync::cuda::device_buffer<double> x(static_cast<std::size_t>(block.part.local_columns()));
    for (int round = 0; round < rounds; ++round) {
      EXPECT_EQ(cudaMemcpyAsync(x.data(), x_rounds[round].data(), static_cast<std::size_t>(owned) * sizeof(double),
                                cudaMemcpyDeviceToDevice, stream.get()),
                cudaSuccess);  // not ASSERT: a rank that left the loop would leave the others' GPUs waiting
      ksync::cuda::mpi::spmv(stream.get(), MPI_COMM_WORLD, block.part, x.data(), ys[round].data());
    }
    for (int round = 0; round < rounds; ++round)
      block.expect_the_one_gpu_rows(
          stream.get(), ys[round], x_globals[round],
          "halo " + std::string(ksync::mpi::to_string(halo)) + ", " + rank_text() + ", round " + std::to_string(round));
  }
}

// A rank whose own CUDA call fails in the product (ksync::cuda::fail_cuda_call_after: the 4th checked call, past
// the argument checks' three; with a peer halo each later one in turn, until the failure falls past the product)
// still sends and receives its halo, then throws what it caught: the other ranks' products return (with a peer
// halo their GPUs wait for its counters, whose writes fail_cuda_call_after does not count), and the next product
// on every rank gives the one-GPU rows bit for bit. The products alternate two counter values, so the failing
// products all carry one and the clean ones the other: each failing product captures its graph anew until a
// capture completes, so the failures walk through the capture's calls and then the graph's launch.
TEST(MpiNativeSpmv, ARankThatFailsStillSendsItsHalo) {
  KSYNC_NEEDS_A_GPU();
  const ksync::cuda::stream stream;
  for (const halo_memory halo : {halo_memory::staged, halo_memory::peer}) {
    const rank_block block(ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 9), halo);
    const bool faulty = block.partition.end(ksync::mpi::rank_of(MPI_COMM_WORLD)) == block.a.rows;  // the last rank
    // Every call in turn where each rank has a peer halo that exchanges (two ranks or more); decided together, as
    // the loop is collective.
    int every_call = block.part.peer() != nullptr && block.part.plan().exchanges() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &every_call, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    const std::vector<double> x_global = global_x(block.a.cols, 0);
    const auto x = block.local_x(x_global);
    const ksync::cuda::device_buffer<double> y(static_cast<std::size_t>(block.part.owned_rows()));
    int failed_calls = 0;
    for (int call = 4; call < 64; ++call) {
      const std::string where =
          "halo " + std::string(ksync::mpi::to_string(halo)) + ", call " + std::to_string(call) + ", " + rank_text();
      if (faulty) ksync::cuda::fail_cuda_call_after(call);
      int threw = 0;
      try {
        ksync::cuda::mpi::spmv(stream.get(), MPI_COMM_WORLD, block.part, x.data(), y.data());
      } catch (const ksync::cuda::cuda_error& error) {
        threw = 1;
        EXPECT_NE(std::string(error.what()).find("cudaErrorLaunchFailure"), std::string::npos) << error.what();
      }
      ksync::cuda::fail_cuda_call_after(0);
      if (!faulty) {
        EXPECT_EQ(threw, 0) << where;
      }
      MPI_Allreduce(MPI_IN_PLACE, &threw, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      ksync::cuda::mpi::spmv(stream.get(), MPI_COMM_WORLD, block.part, x.data(), y.data());
      block.expect_the_one_gpu_rows(stream.get(), y, x_global, "the product after the failure, " + where);
      if (threw == 0) break;  // the failure fell past the product: each of its checked calls failed once
      ++failed_calls;
      if (every_call == 0) break;
    }
    // A peer product's first launch checks 17 calls past the arguments: the stream's priority, the priority range,
    // the branch and capture streams, the capture's start, x's event and the branch's wait on it, the interior rows,
    // a gather, its two events, the wait on the second, the ghosts' copy, the boundary rows, the capture's end, the
    // graph's instantiation and its launch. Taken one by one (a driver that refuses to capture), 9.
    EXPECT_GE(failed_calls, every_call == 1 ? 8 : 1) << rank_text();
  }
}

// A rank whose earlier step failed takes its next product's steps one by one (ksync/cuda/mpi/spmv.hpp,
// spmv_peer_unchecked): the start, the pushes and the waits still go out, on the stream its graphs ran on, each
// tried on its own, also where one of their own checked calls fails (fail_cuda_call_after, each of the six in
// turn: x's event and the wait on it, the gather, the two events after it, the wait on the second). The other
// ranks' products, graphs, return, and the next product on every rank gives the one-GPU rows bit for bit.
TEST(MpiNativeSpmv, AFailedRanksProductStillTellsItsNeighbours) {
  KSYNC_NEEDS_A_GPU();
  const ksync::cuda::stream stream;
  const rank_block block(ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 9), halo_memory::peer);
  int exchanges = block.part.plan().exchanges() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &exchanges, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);  // every rank skips, or none
  if (exchanges == 0) GTEST_SKIP() << "ksync-skip: needs two ranks or more";
  const bool faulty = block.partition.end(ksync::mpi::rank_of(MPI_COMM_WORLD)) == block.a.rows;  // the last rank
  const std::vector<double> x_global = global_x(block.a.cols, 0);
  const auto x = block.local_x(x_global);
  const ksync::cuda::device_buffer<double> y(static_cast<std::size_t>(block.part.owned_rows()));
  ksync::cuda::mpi::spmv(stream.get(), MPI_COMM_WORLD, block.part, x.data(), y.data());  // the graphs captured
  for (int call = 1; call <= 6; ++call) {
    const std::string where = "call " + std::to_string(call) + ", " + rank_text();
    ksync::mpi::detail::local_failure failure;
    if (faulty) {
      try {
        throw std::runtime_error("an earlier step of this rank");
      } catch (...) {
        failure.hold();
      }
      ksync::cuda::fail_cuda_call_after(call);
    }
    ksync::cuda::mpi::detail::spmv_unchecked(stream.get(), MPI_COMM_WORLD, block.part, x.data(), y.data(), failure);
    ksync::cuda::fail_cuda_call_after(0);
    EXPECT_EQ(failure.failed(), faulty) << where;
    ksync::cuda::mpi::spmv(stream.get(), MPI_COMM_WORLD, block.part, x.data(), y.data());
    block.expect_the_one_gpu_rows(stream.get(), y, x_global, "the product after the failed one, " + where);
  }
  if (block.part.peer()->graph_launched()) {
    EXPECT_FALSE(block.part.peer()->captures_refused()) << rank_text();
  }
}

// A product's captured graph is kept for the vectors it read and wrote (ksync/cuda/detail/distributed/peer_halo.hpp):
// each of them changed once — x, y, where the boundary rows read the ghosts (the solver's products read them where
// they arrived) and the stream's priority — and each run three times, so that both counter values' graphs are
// launched again. Every y must be its own x's rows. Where no peer product ran as a graph (a driver that refuses to
// capture them), the test says so on its output and checks the steps taken one by one.
TEST(MpiNativeSpmv, AProductFollowsEachNewVectorItIsGiven) {
  KSYNC_NEEDS_A_GPU();
  const ksync::cuda::stream stream;
  using ksync::mpi::detail::ghost_destination;
  for (const halo_memory halo : halo_paths()) {
    const rank_block block(ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 24), halo);
    const std::vector<double> x_globals[2] = {global_x(block.a.cols, 0), global_x(block.a.cols, 1)};
    const ksync::cuda::device_buffer<double> xs[2] = {block.local_x(x_globals[0]), block.local_x(x_globals[1])};
    const ksync::cuda::device_buffer<double> ys[2] = {
        ksync::cuda::device_buffer<double>(static_cast<std::size_t>(block.part.owned_rows())),
        ksync::cuda::device_buffer<double>(static_cast<std::size_t>(block.part.owned_rows()))};
    struct product {
      int x, y;
      ghost_destination ghosts;
    };
    const product products[] = {{.x = 0, .y = 0, .ghosts = ghost_destination::x},
                                {.x = 1, .y = 0, .ghosts = ghost_destination::x},
                                {.x = 1, .y = 1, .ghosts = ghost_destination::x},
                                {.x = 1, .y = 1, .ghosts = ghost_destination::where_they_arrive},
                                {.x = 0, .y = 0, .ghosts = ghost_destination::x}};
    const std::int64_t owned = block.part.owned_rows();
    const std::int64_t ghosts = block.part.local_columns() - owned;
    for (const product& p : products) {
      // Where the boundary rows read the ghosts where they arrived, nothing writes x's ghosts (but a direct halo,
      // which receives into x): NaN there must stay NaN, or a graph captured for the copy into x ran.
      const bool ghosts_stay = p.ghosts == ghost_destination::where_they_arrive && halo != halo_memory::direct;
      if (ghosts_stay) {
        const std::vector<double> nan(static_cast<std::size_t>(ghosts), std::numeric_limits<double>::quiet_NaN());
        EXPECT_EQ(cudaMemcpy(xs[p.x].data() + owned, nan.data(), nan.size() * sizeof(double), cudaMemcpyHostToDevice),
                  cudaSuccess);
      }
      for (int run = 0; run < 3; ++run) {
        ksync::mpi::detail::local_failure failure;
        ksync::cuda::mpi::detail::spmv_unchecked(stream.get(), MPI_COMM_WORLD, block.part, xs[p.x].data(),
                                                 ys[p.y].data(), failure, p.ghosts);
        EXPECT_FALSE(failure.failed());
        block.expect_the_one_gpu_rows(stream.get(), ys[p.y], x_globals[p.x],
                                      "halo " + std::string(ksync::mpi::to_string(halo)) + ", x " +
                                          std::to_string(p.x) + ", y " + std::to_string(p.y) + ", ghosts " +
                                          (p.ghosts == ghost_destination::x ? "into x" : "where they arrive") +
                                          ", run " + std::to_string(run) + ", " + rank_text());
      }
      if (ghosts_stay) {
        const std::vector<double> x_after = xs[p.x].to_host();
        EXPECT_EQ(std::count_if(x_after.begin() + owned, x_after.end(), [](double v) { return !std::isnan(v); }), 0)
            << "x's ghosts were written, halo " << ksync::mpi::to_string(halo) << ", " << rank_text();
      }
    }
    // The stream's priority, the last captured input: no result can show a graph that runs its rows at another
    // priority, but the products on a stream of the highest one must still be exact.
    const ksync::cuda::stream urgent(ksync::cuda::stream_priority_range().greatest);
    for (int run = 0; run < 3; ++run) {
      ksync::cuda::mpi::spmv(urgent.get(), MPI_COMM_WORLD, block.part, xs[0].data(), ys[0].data());
      block.expect_the_one_gpu_rows(urgent.get(), ys[0], x_globals[0],
                                    "halo " + std::string(ksync::mpi::to_string(halo)) +
                                        ", a stream of the highest priority, run " + std::to_string(run) + ", " +
                                        rank_text());
    }
    if (block.part.peer() != nullptr && block.part.plan().exchanges() && !block.part.peer()->graph_launched())
      std::printf("ksync-note: %s: no peer product ran as a graph (the driver refused to capture one)\n",
                  rank_text().c_str());
  }
}

}  // namespace
