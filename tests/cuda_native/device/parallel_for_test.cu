// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::parallel_for (native): every strategy reaches every index (and every pair of the 2-D form, in
// either order) exactly once, with int32 and int64 counts, 2^31 indices and more with int64; bad input
// refused before any work.
#include "../../support/errors.hpp"
#include "../../support/gpu.hpp"
#include "../../support/reference.hpp"

#include <ksync/cuda/device/parallel_for.cuh>
#include <ksync/cuda/device_buffer.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ksync::test {
namespace {

template <class Index>
struct CountCalls {
  std::int32_t* counts;
  __device__ void operator()(Index i) const { atomicAdd(counts + i, 1); }
};

// Past 2^31 indices a counter per index would take 8 GiB: each index adds itself and 1 into one of 4096
// buckets instead (i % 4096), whose sums and counts are known exactly.
struct BucketIndices {
  unsigned long long* sums;
  unsigned long long* counts;
  __device__ void operator()(std::int64_t i) const {
    atomicAdd(sums + i % 4096, static_cast<unsigned long long>(i));
    atomicAdd(counts + i % 4096, 1ULL);
  }
};

template <class Index>
void expect_each_index_once() {
  for (const auto strategy : ids_of_half<index_strategy>(strategy_half::native)) {
    for (const std::int64_t n : {0, 1, 3, 255, 256, 257, 1'023, 1'024, 1'025, 135'169, 1'000'003, 4'194'305}) {
      if (!size_enabled(static_cast<std::size_t>(n))) continue;
      SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy) << ", n = " << n);
      cuda::device_buffer<std::int32_t> counts(std::vector<std::int32_t>(static_cast<std::size_t>(n), 0));
      ksync::cuda::parallel_for(cudaStreamPerThread, static_cast<Index>(n), CountCalls<Index>{counts.data()}, strategy);
      std::int64_t wrong = 0;
      for (const auto count : counts.to_host())
        wrong += count == 1 ? 0 : 1;
      EXPECT_EQ(wrong, 0);
    }
  }
}

TEST(NativeParallelForGpu, EveryStrategyCallsFOncePerIndexWithInt32Counts) {
  KSYNC_REQUIRE_GPU();
  expect_each_index_once<std::int32_t>();
}

TEST(NativeParallelForGpu, EveryStrategyCallsFOncePerIndexWithInt64Counts) {
  KSYNC_REQUIRE_GPU();
  expect_each_index_once<std::int64_t>();
}

TEST(NativeParallelForGpu, Int64CountsReachPast2To31) {
  KSYNC_REQUIRE_GPU();
  constexpr std::int64_t n = (std::int64_t{1} << 31) + 4'099;
  constexpr std::int64_t buckets = 4096;
  if (!size_enabled(static_cast<std::size_t>(n)))
    GTEST_SKIP() << "ksync-skip: n = 2^31 + 4099 is over KSYNC_TEST_MAX_SIZE";
  for (const auto strategy : ids_of_half<index_strategy>(strategy_half::native)) {
    SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy));
    cuda::device_buffer<unsigned long long> sums(std::vector<unsigned long long>(buckets, 0));
    cuda::device_buffer<unsigned long long> counts(std::vector<unsigned long long>(buckets, 0));
    ksync::cuda::parallel_for(cudaStreamPerThread, n, BucketIndices{sums.data(), counts.data()}, strategy);
    const auto got_sums = sums.to_host();
    const auto got_counts = counts.to_host();
    std::int64_t wrong = 0;
    for (std::int64_t b = 0; b < buckets; ++b) {
      // Indices b, b + 4096, ..., below n: k of them, summing to k b + 4096 k (k - 1) / 2.
      const auto k = static_cast<unsigned long long>((n - b + buckets - 1) / buckets);
      const unsigned long long sum = k * static_cast<unsigned long long>(b) + 4096ULL * k * (k - 1) / 2;
      wrong += got_counts[static_cast<std::size_t>(b)] == k && got_sums[static_cast<std::size_t>(b)] == sum ? 0 : 1;
    }
    EXPECT_EQ(wrong, 0);
  }
}

// The 2-D form: counts[i * cols + j] += 1 for the pair (i, j), every strategy, both orders.
template <class Index>
struct CountPairs {
  std::int32_t* counts;
  Index cols;
  __device__ void operator()(Index i, Index j) const { atomicAdd(counts + static_cast<std::int64_t>(i) * cols + j, 1); }
};

template <class Index>
void expect_each_pair_once(iterate order) {
  for (const auto strategy : ids_of_half<index_strategy>(strategy_half::native)) {
    for (const auto& [rows, cols] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {0, 3}, {3, 0}, {1, 1}, {3, 7}, {7, 3}, {1, 4'099}, {4'099, 1}, {257, 1'023}, {1'025, 1'025}}) {
      SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy)
                                        << ", order = " << ksync::to_string(order) << ", " << rows << " x " << cols);
      cuda::device_buffer<std::int32_t> counts(std::vector<std::int32_t>(static_cast<std::size_t>(rows * cols), 0));
      ksync::cuda::parallel_for(cudaStreamPerThread, static_cast<Index>(rows), static_cast<Index>(cols),
                                CountPairs<Index>{counts.data(), static_cast<Index>(cols)}, strategy, order);
      std::int64_t wrong = 0;
      for (const auto count : counts.to_host())
        wrong += count == 1 ? 0 : 1;
      EXPECT_EQ(wrong, 0);
    }
  }
}

TEST(NativeParallelForGpu, EveryStrategyCallsFOncePerPairInEitherOrder) {
  KSYNC_REQUIRE_GPU();
  for (const auto order : {iterate::left, iterate::right}) {
    expect_each_pair_once<std::int32_t>(order);
    expect_each_pair_once<std::int64_t>(order);
  }
}

TEST(NativeParallelForArguments, BadExtentsAndOrdersAreRefused) {
  EXPECT_TRUE(refuses(
      [] {
        ksync::cuda::parallel_for(nullptr, 4, 4, CountPairs<std::int32_t>{nullptr, 0}, index_strategy::automatic,
                                  static_cast<iterate>(7));
      },
      "ksync::cuda::parallel_for: order = 7 is not a ksync::iterate"));
  EXPECT_TRUE(refuses([] { ksync::cuda::parallel_for(nullptr, 4, -2, CountPairs<std::int32_t>{nullptr, 0}); },
                      "ksync::cuda::parallel_for: cols = -2 is negative"));
  EXPECT_TRUE(refuses([] { ksync::cuda::parallel_for(nullptr, 70'000, 70'000, CountPairs<std::int32_t>{nullptr, 0}); },
                      "ksync::cuda::parallel_for: rows x cols = 70000 x 70000 does not fit an std::int32_t index"));
}

TEST(NativeParallelForArguments, ANegativeCountAndAPortableStrategyAreRefused) {
  EXPECT_TRUE(refuses([] { ksync::cuda::parallel_for(nullptr, -5, CountCalls<std::int32_t>{nullptr}); },
                      "ksync::cuda::parallel_for: n = -5 is negative"));
  for (const auto strategy : ids_of_half<index_strategy>(strategy_half::portable)) {
    if (strategy == index_strategy::automatic) continue;
    EXPECT_TRUE(refuses([&] { ksync::cuda::parallel_for(nullptr, 4, CountCalls<std::int32_t>{nullptr}, strategy); },
                        "ksync::cuda::parallel_for: strategy = " + std::string(ksync::to_string(strategy)) + " (" +
                            std::to_string(static_cast<int>(strategy)) +
                            ") is not one of ksync::cuda's (automatic, thread_per_index, block_batched, grid_stride)"));
  }
  EXPECT_TRUE(refuses(
      [] { ksync::cuda::parallel_for(nullptr, 4, CountCalls<std::int32_t>{nullptr}, static_cast<index_strategy>(9)); },
      "ksync::cuda::parallel_for: strategy = unknown (9) is not one of ksync::cuda's"));
}

// More indices than a grid of the strategy's blocks holds: refused before any launch, naming n; `automatic`
// loops with grid_stride there instead.
TEST(NativeParallelForArguments, ACountPastTheGridIsRefusedByTheBlockStrategiesAndLoopedByAutomatic) {
  const std::int64_t past_thread_per_index = (std::int64_t{1} << 31) * 256;  // 2^31 blocks of 256
  EXPECT_TRUE(refuses(
      [&] {
        ksync::cuda::parallel_for(nullptr, past_thread_per_index, CountCalls<std::int64_t>{nullptr},
                                  index_strategy::thread_per_index);
      },
      "ksync::cuda::parallel_for: n = 549755813888 needs 2147483648 blocks of strategy thread_per_index, more "
      "than a grid holds (2147483647); grid_stride takes any n"));
  const std::int64_t past_block_batched = (std::int64_t{1} << 31) * 1024;
  EXPECT_TRUE(refuses(
      [&] {
        ksync::cuda::parallel_for(nullptr, past_block_batched, CountCalls<std::int64_t>{nullptr},
                                  index_strategy::block_batched);
      },
      "ksync::cuda::parallel_for: n = 2199023255552 needs 2147483648 blocks of strategy block_batched"));
  using ksync::cuda::detail::native_index_choice;
  const std::int64_t most_block_batched = ksync::cuda::detail::max_grid_blocks * 1024;  // a full grid of blocks
  EXPECT_EQ(native_index_choice(index_strategy::automatic, most_block_batched), index_strategy::block_batched);
  EXPECT_EQ(native_index_choice(index_strategy::automatic, most_block_batched + 1), index_strategy::grid_stride);
  EXPECT_EQ(native_index_choice(index_strategy::automatic, 132 * 1024 - 1), index_strategy::thread_per_index);
}

}  // namespace
}  // namespace ksync::test
