// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The grid spin barriers (grid/barrier.cuh), both forms: every round publishes every block's writes, and a
// grid that cannot be resident times out and reports instead of hanging.
#include "../../support/gpu.hpp"

#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/grid/barrier.cuh>
#include <ksync/cuda/grid/co_resident.cuh>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace {

constexpr int rounds = 50;

// The state of the barrier under test: the acquire/release word, or the volatile sense flag.
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

}  // namespace
