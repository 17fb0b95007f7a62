// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One GPU per MPI rank (CTest runs it with 2 ranks): choosing each rank's GPU, and the device-resident
// distributed reduce through NCCL against a host reference. Without a GPU for every rank, the tests that
// need them skip, and the one that checks the "rank without a GPU" error runs instead (it needs no GPU).
#include "exit_status.hpp"
#include "gpu_ranks.hpp"

#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/node/mpi.hpp>
#include <ksync/cuda/node/nccl.hpp>
#include <ksync/cuda/runtime.hpp>
#include <ksync/cuda/stream.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using ksync::reduce_op;

using ksync::test::every_rank_has_a_gpu;

TEST(MpiDevice, ARankWithoutAGpuStopsEveryRank) {
  if (every_rank_has_a_gpu()) GTEST_SKIP() << "ksync-skip: every rank has a GPU here, so no rank lacks one";
  try {
    (void)ksync::cuda::mpi::select_device(MPI_COMM_WORLD);
    ADD_FAILURE() << "no exception";
  } catch (const ksync::mpi::collective_error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("ksync::cuda::mpi::select_device: rank " + std::to_string(error.failing_rank())),
              std::string::npos)
        << message;
    EXPECT_TRUE(message.find("no CUDA GPU is visible") != std::string::npos ||
                message.find("a rank without a GPU of its own") != std::string::npos)
        << message;
  }
}

TEST(MpiGpu, NcclReduceLeavesTheGlobalValueOnEveryRanksGpu) {
  if (!every_rank_has_a_gpu()) GTEST_SKIP() << "ksync-skip: needs a CUDA GPU for every rank";
  if (!ksync::cuda::node::has_nccl()) GTEST_SKIP() << "ksync-skip: this build has no NCCL";
  const int device = ksync::cuda::mpi::select_device(MPI_COMM_WORLD);
  EXPECT_EQ(device, ksync::mpi::local_rank(MPI_COMM_WORLD));
  const auto communicator = ksync::cuda::mpi::make_nccl_communicator(MPI_COMM_WORLD);
  const int rank = communicator.rank();
  const int ranks = communicator.ranks();
  const std::size_t n = (std::size_t{1} << 20) + static_cast<std::size_t>(rank);
  std::vector<std::int64_t> host(n);
  for (std::size_t i = 0; i < n; ++i)
    host[i] = static_cast<std::int64_t>(i % 1000) + rank;
  const ksync::cuda::device_buffer<std::int64_t> data(host);
  const ksync::cuda::device_buffer<std::int64_t> result(1);
  const ksync::cuda::stream stream;
  for (const auto op : {reduce_op::sum, reduce_op::min, reduce_op::max}) {
    ksync::cuda::node::reduce(communicator, stream.get(), data.data(), n, op, result.data());
    stream.synchronize();
    // Every rank's part: (i % 1000) + r for i < 2^20 + r.
    std::int64_t expected = op == reduce_op::sum ? 0 : op == reduce_op::min ? 0 : 999 + ranks - 1;
    if (op == reduce_op::sum) {
      for (int r = 0; r < ranks; ++r)
        for (std::size_t i = 0; i < (std::size_t{1} << 20) + static_cast<std::size_t>(r); ++i)
          expected += static_cast<std::int64_t>(i % 1000) + r;
    }
    EXPECT_EQ(result.to_host().front(), expected) << ksync::to_string(op);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int status = ksync::test::agreed_exit_status(RUN_ALL_TESTS());
  MPI_Finalize();
  return status;
}
