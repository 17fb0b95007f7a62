// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Grid- and cluster-scope synchronization: the co-resident grid and cooperative launch helpers, both spin
// barriers (every round publishes every block's writes; a grid that cannot be resident times out and
// reports instead of hanging), and cluster.sync() with distributed shared memory for every cluster size.
#include "../../support/gpu.hpp"

#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/grid/barrier.cuh>
#include <ksync/cuda/grid/cluster.cuh>
#include <ksync/cuda/grid/co_resident.cuh>
#include <ksync/cuda/runtime.hpp>

#include <cooperative_groups.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

constexpr int rounds = 50;

// Round r: block b writes slot[b] = r * G + b, waits, reads its neighbour's slot, waits again (so no block
// overwrites a slot before everyone has read it). Counts the reads that saw a stale value.
template <bool Volatile>
using barrier_state_t =
    std::conditional_t<Volatile, ksync::cuda::volatile_spin_barrier_state, ksync::cuda::spin_barrier_state>;

// Round r: block b writes slot[b] = r * G + b, waits, reads its neighbour's slot, waits again (so no block
// overwrites a slot before everyone has read it). Counts the reads that saw a stale value.
template <bool Volatile>
__global__ void ring_rounds(barrier_state_t<Volatile>* state, std::uint64_t timeout_ns, unsigned int* slots,
                            unsigned int* stale) {
  unsigned int sense = 0;
  const auto wait = [&] {
    if constexpr (Volatile) {
      return ksync::cuda::volatile_spin_barrier_sync(state, sense, timeout_ns);
    } else {
      return ksync::cuda::spin_barrier_sync(state, timeout_ns);
    }
  };
  for (unsigned int round = 0; round < rounds; ++round) {
    if (threadIdx.x == 0) slots[blockIdx.x] = round * gridDim.x + blockIdx.x;
    // Participation: every thread of every block of the (co-resident) grid. Data: slots[0, gridDim.x).
    // Publishes this round's slots to every block.
    if (!wait()) return;
    const unsigned int neighbour = (blockIdx.x + 1) % gridDim.x;
    if (threadIdx.x == 0 && slots[neighbour] != round * gridDim.x + neighbour) atomicAdd(stale, 1u);
    // Participation: every thread of every block. Data: none new; keeps every slot until all have read it.
    if (!wait()) return;
  }
}

template <bool Volatile>
void run_rounds(unsigned int blocks, int block_size, std::size_t shared_bytes, std::uint64_t timeout_ns,
                unsigned int& stale, unsigned int& timed_out) {
  ksync::cuda::device_buffer<barrier_state_t<Volatile>> state(std::vector<barrier_state_t<Volatile>>(1));
  ksync::cuda::device_buffer<unsigned int> slots(blocks);
  ksync::cuda::device_buffer<unsigned int> stale_count(std::vector<unsigned int>{0});
  ring_rounds<Volatile>
      <<<blocks, block_size, shared_bytes>>>(state.data(), timeout_ns, slots.data(), stale_count.data());
  KSYNC_CUDA_CHECK_LAUNCH("ring_rounds");
  KSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  stale = stale_count.to_host()[0];
  timed_out = state.to_host()[0].timed_out;
}

template <class T>
class SpinBarrierGpu : public ::testing::Test {};
struct acquire_release : std::false_type {};
struct volatile_flag : std::true_type {};
using barrier_kinds = ::testing::Types<acquire_release, volatile_flag>;
TYPED_TEST_SUITE(SpinBarrierGpu, barrier_kinds);

TYPED_TEST(SpinBarrierGpu, EveryRoundPublishesEveryBlocksWrite) {
  KSYNC_REQUIRE_GPU();
  int device = 0;
  KSYNC_CUDA_CHECK(cudaGetDevice(&device));
  const auto kernel = ring_rounds<TypeParam::value>;
  for (const int per_multiprocessor : {1, 0}) {  // one block per multiprocessor, then as many as fit
    const auto grid = ksync::cuda::co_resident_grid("test", kernel, 256, 0, per_multiprocessor, device);
    unsigned int stale = 0;
    unsigned int timed_out = 0;
    run_rounds<TypeParam::value>(grid.blocks, 256, 0, 2'000'000'000, stale, timed_out);
    EXPECT_EQ(stale, 0u) << grid.blocks << " blocks";
    EXPECT_EQ(timed_out, 0u) << grid.blocks << " blocks";
  }
}

TYPED_TEST(SpinBarrierGpu, AGridThatCannotBeResidentTimesOutAndReports) {
  KSYNC_REQUIRE_GPU();
  int device = 0;
  KSYNC_CUDA_CHECK(cudaGetDevice(&device));
  const auto kernel = ring_rounds<TypeParam::value>;
  constexpr std::size_t shared_bytes = 150 * 1024;  // one block per multiprocessor
  KSYNC_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  const auto grid = ksync::cuda::co_resident_grid("test", kernel, 128, shared_bytes, 0, device);
  EXPECT_THROW(ksync::cuda::check_co_resident("test", kernel, grid.blocks + 1, 128, shared_bytes, device),
               std::invalid_argument);
  // Launched anyway: the resident blocks wait for one that cannot start, give up after 5 ms and report.
  unsigned int stale = 0;
  unsigned int timed_out = 0;
  run_rounds<TypeParam::value>(grid.blocks + 1, 128, shared_bytes, 5'000'000, stale, timed_out);
  EXPECT_GE(timed_out, grid.blocks);
}

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
