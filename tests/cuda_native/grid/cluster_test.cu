// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Cluster scope (grid/cluster.cuh): cluster.sync() with distributed shared memory for every cluster size,
// and the refusals where clusters cannot run or the size is not one a cluster can have.
#include "../../support/gpu.hpp"

#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/grid/cluster.cuh>

#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

__global__ void rotate_in_cluster(unsigned int* out) {
  __shared__ unsigned int slot;
  const unsigned int theirs = ksync::cuda::cluster_rotate(slot, blockIdx.x, 1u);
  if (threadIdx.x == 0) out[blockIdx.x] = theirs;
}

TEST(ClusterGpu, DistributedSharedMemoryRotatesWithinEveryClusterSize) {
  KSYNC_REQUIRE_GPU();
  KSYNC_REQUIRE_CLUSTERS();
  constexpr unsigned int clusters = 37;
  for (const int size : {1, 2, 4, 8, 16}) {
    SCOPED_TRACE("cluster size " + std::to_string(size));
    try {
      ksync::cuda::cluster_launch launch("test", rotate_in_cluster, 128, size, 0, cudaStreamPerThread);
      const unsigned int blocks = clusters * launch.cluster_size();
      ksync::cuda::device_buffer<unsigned int> out(blocks);
      launch.launch(clusters, out.data());
      KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
      std::vector<unsigned int> expected(blocks);
      for (unsigned int b = 0; b < blocks; ++b) {
        const unsigned int first = b - b % launch.cluster_size();
        expected[b] = first + (b % launch.cluster_size() + 1) % launch.cluster_size();
      }
      EXPECT_EQ(out.to_host(), expected);
      std::printf("cluster size %d: %d clusters fit at once\n", size, launch.max_active_clusters());
    } catch (const std::invalid_argument& error) {
      // Only the non-portable size may be refused, and then with a message that says so.
      EXPECT_EQ(size, 16) << error.what();
      std::printf("cluster size 16 refused here: %s\n", error.what());
    }
  }
}

// Where clusters cannot run (a device older than sm_90, or a build without sm_90 code), a cluster launch is
// refused before it starts, with a message that names the device and what it lacks.
TEST(ClusterRefusalGpu, LaunchesAreRefusedNamingTheDeviceWhereClustersCannotRun) {
  KSYNC_REQUIRE_GPU();
  const auto& support = ksync::test::cluster_support_here();
  if (support.available) GTEST_SKIP() << "ksync-skip: clusters run here; ClusterGpu tests them";
  EXPECT_NE(support.reason.find("device 0 ("), std::string::npos) << support.reason;
  try {
    ksync::cuda::cluster_launch launch("test", rotate_in_cluster, 128, 2, 0, cudaStreamPerThread);
    ADD_FAILURE() << "a cluster launch was accepted where clusters cannot run: " << support.reason;
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "test: " + support.reason);
  }
  std::printf("clusters refused here: %s\n", support.reason.c_str());
}

TEST(Cluster, SizesOtherThanPowersOfTwoUpTo16AreRefusedBeforeAnyCudaCall) {
  for (const int size : {0, 3, 32}) {
    try {
      ksync::cuda::cluster_launch launch("test", rotate_in_cluster, 128, size, 0, cudaStreamPerThread);
      ADD_FAILURE() << "cluster size " << size << " was accepted";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("cluster_size = " + std::to_string(size)), std::string::npos);
    }
  }
}

}  // namespace
