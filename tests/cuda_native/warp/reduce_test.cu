// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Warp-scope reduction and broadcast (warp/reduce.cuh) with the masks it prescribes: computed where
// the participants are known, __activemask() read inside a divergent branch.
#include "../../support/gpu.hpp"

#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/warp/reduce.cuh>
#include <ksync/ops.hpp>

#include <gtest/gtest.h>

#include <bitset>
#include <cstdint>
#include <random>
#include <vector>

namespace {

namespace warp = ksync::cuda::warp;
using ksync::cuda::device_buffer;

// Lanes [0, count) of one warp reduce; the mask comes from `count` (the lanes that hold data).
__global__ void prefix_sums(const int* values, int* sums) {
  const unsigned lane = warp::lane_id();
  for (unsigned count = 1; count <= 32; ++count) {
    if (lane < count) {
      const int sum = warp::reduce_prefix(count, values[lane], ksync::plus{});
      if (lane == 0) sums[count - 1] = sum;
    }
    __syncwarp();  // participation: the full warp, every round; data: none (orders the rounds for racecheck)
  }
}

// Flagged lanes reduce inside the divergent branch, with the mask read there by __activemask().
__global__ void sums_in_branch(const int* values, const int* flags, int* sums, unsigned* masks) {
  const unsigned lane = warp::lane_id();
  if (flags[lane] != 0) {
    const unsigned mask = __activemask();  // inside the branch: the lanes that took it and are here now
    sums[lane] = warp::reduce(mask, values[lane], ksync::plus{});
    masks[lane] = mask;
  }
}

// The same with the mask computed before the branch by a ballot of the whole warp.
__global__ void sums_with_ballot(const int* values, const int* flags, int* sums) {
  const unsigned lane = warp::lane_id();
  const unsigned mask = __ballot_sync(warp::full_mask, flags[lane] != 0);  // participation: the full warp
  if (flags[lane] != 0) sums[lane] = warp::reduce(mask, values[lane], ksync::plus{});
}

__global__ void broadcast_from(const int* values, unsigned source, int* out) {
  const unsigned lane = warp::lane_id();
  out[lane] = warp::broadcast(warp::full_mask, values[lane], source);
}

std::vector<int> random_values(std::mt19937& engine) {
  std::vector<int> values(32);
  for (auto& v : values)
    v = static_cast<int>(engine() % 1000) - 500;
  return values;
}

TEST(NativeWarpGpu, PrefixReductionWithAComputedMaskForEveryLaneCount) {
  KSYNC_REQUIRE_GPU();
  std::mt19937 engine(1);
  const auto values = random_values(engine);
  const device_buffer<int> in(values);
  device_buffer<int> sums(std::vector<int>(32, -1));
  prefix_sums<<<1, 32>>>(in.data(), sums.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto got = sums.to_host();
  int expected = 0;
  for (unsigned count = 1; count <= 32; ++count) {
    expected += values[count - 1];
    EXPECT_EQ(got[count - 1], expected) << "count = " << count;
  }
}

TEST(NativeWarpGpu, ReductionInsideABranchUsesTheMaskReadThere) {
  KSYNC_REQUIRE_GPU();
  std::mt19937 engine(2);
  for (int trial = 0; trial < 50; ++trial) {
    const auto values = random_values(engine);
    std::vector<int> flags(32);
    unsigned flagged = 0;
    for (unsigned lane = 0; lane < 32; ++lane) {
      flags[lane] = trial == 0 ? 1 : static_cast<int>(engine() % 2);  // trial 0: every lane
      if (flags[lane] != 0) flagged |= 1u << lane;
    }
    const device_buffer<int> in(values);
    const device_buffer<int> flag_buffer(flags);
    device_buffer<int> sums(std::vector<int>(32, 0));
    device_buffer<unsigned> masks(std::vector<unsigned>(32, 0));
    device_buffer<int> ballot_sums(std::vector<int>(32, 0));
    sums_in_branch<<<1, 32>>>(in.data(), flag_buffer.data(), sums.data(), masks.data());
    sums_with_ballot<<<1, 32>>>(in.data(), flag_buffer.data(), ballot_sums.data());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto got_sums = sums.to_host();
    const auto got_masks = masks.to_host();
    const auto got_ballot = ballot_sums.to_host();
    int flagged_sum = 0;
    for (unsigned lane = 0; lane < 32; ++lane)
      flagged_sum += (flagged >> lane & 1u) != 0 ? values[lane] : 0;
    unsigned seen = 0;
    for (unsigned lane = 0; lane < 32; ++lane) {
      if ((flagged >> lane & 1u) == 0) continue;
      // The reduction is right for the mask the lane read; the mask never names a lane that skipped the branch.
      int mask_sum = 0;
      for (unsigned other = 0; other < 32; ++other)
        mask_sum += (got_masks[lane] >> other & 1u) != 0 ? values[other] : 0;
      EXPECT_EQ(got_sums[lane], mask_sum) << "trial " << trial << ", lane " << lane;
      EXPECT_EQ(got_masks[lane] & ~flagged, 0u) << "trial " << trial << ", lane " << lane;
      seen |= got_masks[lane];
      EXPECT_EQ(got_ballot[lane], flagged_sum) << "trial " << trial << ", lane " << lane;
    }
    EXPECT_EQ(seen, flagged) << "trial " << trial << ": the flagged lanes are " << std::bitset<32>(flagged);
  }
}

TEST(NativeWarpGpu, BroadcastHandsEveryLaneTheSourceValue) {
  KSYNC_REQUIRE_GPU();
  std::mt19937 engine(3);
  const auto values = random_values(engine);
  const device_buffer<int> in(values);
  for (unsigned source : {0u, 5u, 31u}) {
    device_buffer<int> out(std::vector<int>(32, 0));
    broadcast_from<<<1, 32>>>(in.data(), source, out.data());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(out.to_host(), std::vector<int>(32, values[source])) << "source lane " << source;
  }
}

}  // namespace
