// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::mpi::spmv's halo under stress, on however many ranks mpiexec starts (CTest: 1, 2 and 3): products
// enqueued back to back with x overwritten between them, and a rank whose CUDA calls fail one after another in a
// product while the others finish theirs. Every halo path this MPI allows, peer included. Without a GPU every test
// skips.
#include "native_ranks.hpp"

#include <ksync/cuda/error.hpp>
#include <ksync/cuda/mpi/spmv.hpp>
#include <ksync/cuda/stream.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace ksync::test::native_ranks;

// Products enqueued back to back on one stream, the host never waiting for the GPU between them: one x overwritten
// on the stream before each product, a y for each. Every y must be its own x's rows: a product whose pack read x
// before the overwrite, or whose pushes overwrote a neighbour's ghosts before that neighbour's last boundary rows
// read them, gives another round's rows.
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
// on every rank gives the one-GPU rows bit for bit.
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
    // A peer product checks at least 8 calls past the arguments: x's event and the halo stream's wait on it, the
    // interior rows, a gather, its event, the wait on it, the ghosts' copy, the boundary rows.
    EXPECT_GE(failed_calls, every_call == 1 ? 8 : 1) << rank_text();
  }
}

}  // namespace
