// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The co-resident grid (grid/co_resident.cuh): co_resident_grid sizes a grid from occupancy, and
// launch_cooperative runs it and refuses one block more than can be resident at once.
#include "../../support/gpu.hpp"

#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/grid/co_resident.cuh>

#include <cooperative_groups.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace {

__global__ void count_with_grid_sync(unsigned int* counter, unsigned int* seen) {
  if (threadIdx.x == 0) atomicAdd(counter, 1u);
  // Participation: every thread of every block of the cooperative grid. Data: *counter. Publishes every
  // block's increment before any block reads the total.
  cooperative_groups::this_grid().sync();
  if (threadIdx.x == 0) seen[blockIdx.x] = atomicAdd(counter, 0u);
}

TEST(CooperativeGridGpu, SizedFromOccupancyAndRefusedWhenTooLarge) {
  KSYNC_REQUIRE_GPU();
  int device = 0;
  KSYNC_CUDA_CHECK(cudaGetDevice(&device));
  const auto grid = ksync::cuda::co_resident_grid("test", count_with_grid_sync, 256, 0, 0, device);
  ksync::cuda::device_buffer<unsigned int> counter(1);
  counter.copy_from({0});
  ksync::cuda::device_buffer<unsigned int> seen(grid.blocks);
  ksync::cuda::launch_cooperative("test", count_with_grid_sync, grid, cudaStreamPerThread, counter.data(), seen.data());
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  EXPECT_EQ(seen.to_host(), std::vector<unsigned int>(grid.blocks, grid.blocks));

  auto too_large = grid;
  ++too_large.blocks;
  try {
    ksync::cuda::launch_cooperative("test", count_with_grid_sync, too_large, cudaStreamPerThread, counter.data(),
                                    seen.data());
    ADD_FAILURE() << "a grid of " << too_large.blocks << " blocks was launched";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("cannot be resident at once"), std::string::npos) << error.what();
  }
  try {
    (void)ksync::cuda::co_resident_grid("test", count_with_grid_sync, 256, 0, grid.blocks_per_multiprocessor + 1,
                                        device);
    ADD_FAILURE() << "more blocks per multiprocessor than fit were accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("blocks_per_multiprocessor = "), std::string::npos) << error.what();
  }
}

}  // namespace
