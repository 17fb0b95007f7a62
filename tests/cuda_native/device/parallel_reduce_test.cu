// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::parallel_reduce (native) against host references: every native reduce strategy, int32 and
// int64 counts (past 2^31 with int64), into device memory and into a host scalar, sums, minima and maxima;
// the 2-D form in either order, sums and maxima; bad input refused before any work, an unknown operator among it.
#include "../../support/errors.hpp"
#include "../../support/gpu.hpp"
#include "../../support/reference.hpp"

#include <ksync/cuda/device/parallel_reduce.cuh>
#include <ksync/cuda/device_buffer.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace ksync::test {
namespace {

const std::vector<reduce_strategy> native_strategies = ids_of_half<reduce_strategy>(strategy_half::native);

// acc += i: the sum n (n - 1) / 2 is exact in an int64, and a missed or repeated index changes it.
template <class Index>
struct SumOfIndices {
  __device__ void operator()(Index i, std::int64_t& acc) const { acc += i; }
};

// acc += x[i] * y[i], the terms integers of magnitude 2500 at most.
template <class T>
struct Products {
  const T* x;
  const T* y;
  __device__ void operator()(std::int64_t i, T& acc) const { acc += x[i] * y[i]; }
};

// acc = min(acc, x[i]) or max(acc, x[i]).
template <class T>
struct Extreme {
  const T* x;
  bool minimum;
  __device__ void operator()(std::int32_t i, T& acc) const {
    acc = minimum ? (x[i] < acc ? x[i] : acc) : (x[i] > acc ? x[i] : acc);
  }
};

const std::vector<std::int64_t> index_counts{0, 1, 3, 255, 256, 257, 4'099, 135'169, 1'000'003, 4'194'305};

// Small integers, -50 .. 49, in a scrambled order.
template <class T>
std::vector<T> small_integers(std::int64_t n, std::int64_t seed) {
  std::vector<T> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    values[static_cast<std::size_t>(i)] = static_cast<T>((i * 7919 + seed) % 100 - 50);
  return values;
}

template <class Index>
void expect_sum_of_indices() {
  cuda::device_buffer<std::int64_t> result(1);
  for (const auto strategy : native_strategies) {
    for (const std::int64_t n : index_counts) {
      if (!size_enabled(static_cast<std::size_t>(n))) continue;
      SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy) << ", n = " << n);
      std::int64_t blocking = -1;
      ksync::cuda::parallel_reduce(cudaStreamPerThread, static_cast<Index>(n), SumOfIndices<Index>{}, blocking,
                                   strategy);
      EXPECT_EQ(blocking, n * (n - 1) / 2);
      ksync::cuda::parallel_reduce(cudaStreamPerThread, static_cast<Index>(n), SumOfIndices<Index>{}, result.data(),
                                   strategy);
      EXPECT_EQ(result.to_host()[0], n * (n - 1) / 2);
    }
  }
}

TEST(NativeParallelReduceGpu, EveryStrategySumsEachIndexOnceWithInt32AndInt64Counts) {
  KSYNC_REQUIRE_GPU();
  expect_sum_of_indices<std::int32_t>();
  expect_sum_of_indices<std::int64_t>();
}

TEST(NativeParallelReduceGpu, Int64CountsReachPast2To31) {
  KSYNC_REQUIRE_GPU();
  constexpr std::int64_t n = (std::int64_t{1} << 31) + 4'099;
  if (!size_enabled(static_cast<std::size_t>(n)))
    GTEST_SKIP() << "ksync-skip: n = 2^31 + 4099 is over KSYNC_TEST_MAX_SIZE";
  for (const auto strategy : native_strategies) {
    SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy));
    std::int64_t sum = 0;
    ksync::cuda::parallel_reduce(cudaStreamPerThread, n, SumOfIndices<std::int64_t>{}, sum, strategy);
    EXPECT_EQ(sum, n * (n - 1) / 2);
  }
}

template <class T>
void expect_dot_min_max() {
  for (const auto strategy : native_strategies) {
    for (const std::int64_t n : index_counts) {
      if (!size_enabled(static_cast<std::size_t>(n))) continue;
      SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy) << ", n = " << n);
      const auto x = small_integers<T>(n, 3);
      const auto y = small_integers<T>(n, 41);
      const cuda::device_buffer<T> dx(x);
      const cuda::device_buffer<T> dy(y);
      T expected_dot = 0;
      for (std::size_t i = 0; i < x.size(); ++i)
        expected_dot += x[i] * y[i];
      // Every partial sum is at most 2500 n in magnitude: exact in a float up to n = 6710 (2^24 / 2500), in a
      // double at every n here.
      if (sizeof(T) == 8 || n <= 6'710) {
        T dot = -1;
        ksync::cuda::parallel_reduce(cudaStreamPerThread, n, Products<T>{dx.data(), dy.data()}, dot, strategy);
        EXPECT_EQ(dot, expected_dot);
      }
      if (n == 0 || n > std::int64_t{1} << 30) continue;
      const auto count = static_cast<std::int32_t>(n);
      T smallest = 0;
      T largest = 0;
      ksync::cuda::parallel_reduce(cudaStreamPerThread, count, Extreme<T>{dx.data(), true}, smallest, strategy,
                                   reduce_op::min);
      ksync::cuda::parallel_reduce(cudaStreamPerThread, count, Extreme<T>{dx.data(), false}, largest, strategy,
                                   reduce_op::max);
      EXPECT_EQ(smallest, *std::min_element(x.begin(), x.end()));
      EXPECT_EQ(largest, *std::max_element(x.begin(), x.end()));
    }
  }
}

TEST(NativeParallelReduceGpu, EveryStrategyComputesDotMinAndMaxOfFloatsAndDoubles) {
  KSYNC_REQUIRE_GPU();
  expect_dot_min_max<float>();
  expect_dot_min_max<double>();
}

// An empty range gives the identity, as Kokkos' parallel_reduce does.
TEST(NativeParallelReduceGpu, AnEmptyRangeGivesTheIdentity) {
  KSYNC_REQUIRE_GPU();
  float smallest = 0;
  ksync::cuda::parallel_reduce(cudaStreamPerThread, 0, Extreme<float>{nullptr, true}, smallest,
                               reduce_strategy::automatic, reduce_op::min);
  EXPECT_EQ(smallest, std::numeric_limits<float>::infinity());
}

// The 2-D form: acc += i * cols + j sums every flat C index once (n (n - 1) / 2) whatever the order, and
// acc += i weighs rows alone (cols rows (rows - 1) / 2), which a swapped i and j would change.
template <class Index>
struct FlatIndexOfPair {
  Index cols;
  bool row_only;
  __device__ void operator()(Index i, Index j, std::int64_t& acc) const {
    acc += row_only ? static_cast<std::int64_t>(i) : static_cast<std::int64_t>(i) * cols + j;
  }
};

// acc = max(acc, i * cols + j): n - 1 over a non-empty range.
template <class Index>
struct LargestFlatIndexOfPair {
  Index cols;
  __device__ void operator()(Index i, Index j, std::int64_t& acc) const {
    const std::int64_t flat = static_cast<std::int64_t>(i) * cols + j;
    acc = flat > acc ? flat : acc;
  }
};

template <class Index>
void expect_each_pair_summed_once(iterate order) {
  cuda::device_buffer<std::int64_t> result(1);
  for (const auto strategy : native_strategies) {
    for (const auto& [rows, cols] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {0, 3}, {3, 0}, {1, 1}, {3, 7}, {7, 3}, {1, 4'099}, {4'099, 1}, {257, 1'023}, {1'025, 1'025}}) {
      SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy)
                                        << ", order = " << ksync::to_string(order) << ", " << rows << " x " << cols);
      const std::int64_t n = rows * cols;
      std::int64_t flat = -1;
      ksync::cuda::parallel_reduce(cudaStreamPerThread, static_cast<Index>(rows), static_cast<Index>(cols),
                                   FlatIndexOfPair<Index>{static_cast<Index>(cols), false}, flat, strategy,
                                   reduce_op::sum, {}, order);
      EXPECT_EQ(flat, n * (n - 1) / 2);
      ksync::cuda::parallel_reduce(cudaStreamPerThread, static_cast<Index>(rows), static_cast<Index>(cols),
                                   FlatIndexOfPair<Index>{static_cast<Index>(cols), true}, result.data(), strategy,
                                   reduce_op::sum, {}, order);
      EXPECT_EQ(result.to_host()[0], cols * rows * (rows - 1) / 2);
      if (n == 0) continue;
      std::int64_t largest = -1;
      ksync::cuda::parallel_reduce(cudaStreamPerThread, static_cast<Index>(rows), static_cast<Index>(cols),
                                   LargestFlatIndexOfPair<Index>{static_cast<Index>(cols)}, largest, strategy,
                                   reduce_op::max, {}, order);
      EXPECT_EQ(largest, n - 1);
    }
  }
}

TEST(NativeParallelReduceGpu, EveryStrategySumsEachPairOnceInEitherOrder) {
  KSYNC_REQUIRE_GPU();
  for (const auto order : {iterate::left, iterate::right}) {
    expect_each_pair_summed_once<std::int32_t>(order);
    expect_each_pair_summed_once<std::int64_t>(order);
  }
}

TEST(NativeParallelReduceArguments, BadExtentsAndOrdersOfThe2DFormAreRefused) {
  std::int64_t sum = 0;
  const FlatIndexOfPair<std::int32_t> f{4, false};
  EXPECT_TRUE(refuses(
      [&] {
        ksync::cuda::parallel_reduce(nullptr, 4, 4, f, sum, reduce_strategy::automatic, reduce_op::sum, {},
                                     static_cast<iterate>(7));
      },
      "ksync::cuda::parallel_reduce: order = 7 is not a ksync::iterate"));
  EXPECT_TRUE(refuses([&] { ksync::cuda::parallel_reduce(nullptr, -3, 4, f, sum); },
                      "ksync::cuda::parallel_reduce: rows = -3 is negative"));
  EXPECT_TRUE(refuses([&] { ksync::cuda::parallel_reduce(nullptr, 70'000, 70'000, f, sum); },
                      "ksync::cuda::parallel_reduce: rows x cols = 70000 x 70000 does not fit an std::int32_t index"));
  EXPECT_TRUE(refuses([&] { ksync::cuda::parallel_reduce(nullptr, 4, 4, f, static_cast<std::int64_t*>(nullptr)); },
                      "ksync::cuda::parallel_reduce: result is null"));
  EXPECT_TRUE(refuses(
      [&] {
        ksync::cuda::parallel_reduce(nullptr, 4, 4, f, sum, reduce_strategy::automatic, static_cast<reduce_op>(7));
      },
      "op = 7 is not a reduce_op"));
}

TEST(NativeParallelReduceArguments, ANegativeCountAPortableStrategyANullResultAndAnUnknownOperatorAreRefused) {
  std::int64_t sum = 0;
  // An operator that is no reduce_op, in either form, before any CUDA call (the pointer is never written).
  EXPECT_TRUE(refuses(
      [&] {
        ksync::cuda::parallel_reduce(nullptr, 4, SumOfIndices<std::int32_t>{}, sum, reduce_strategy::automatic,
                                     static_cast<reduce_op>(7));
      },
      "op = 7 is not a reduce_op"));
  EXPECT_TRUE(refuses(
      [&] {
        ksync::cuda::parallel_reduce(nullptr, 4, SumOfIndices<std::int32_t>{}, &sum, reduce_strategy::automatic,
                                     static_cast<reduce_op>(7));
      },
      "op = 7 is not a reduce_op"));
  EXPECT_TRUE(refuses([&] { ksync::cuda::parallel_reduce(nullptr, -5, SumOfIndices<std::int32_t>{}, sum); },
                      "ksync::cuda::parallel_reduce: n = -5 is negative"));
  EXPECT_TRUE(refuses(
      [&] {
        ksync::cuda::parallel_reduce(nullptr, 5, SumOfIndices<std::int32_t>{}, static_cast<std::int64_t*>(nullptr));
      },
      "ksync::cuda::parallel_reduce: result is null"));
  std::ostringstream native_names;
  native_names << names_of_half<reduce_strategy>{strategy_half::native};
  for (const auto strategy : ids_of_half<reduce_strategy>(strategy_half::portable)) {
    if (strategy == reduce_strategy::automatic) continue;
    EXPECT_TRUE(refuses([&] { ksync::cuda::parallel_reduce(nullptr, 4, SumOfIndices<std::int32_t>{}, sum, strategy); },
                        "ksync::cuda::parallel_reduce: strategy = " + std::string(ksync::to_string(strategy)) +
                            " is a portable (Kokkos) strategy; ksync::cuda implements " + native_names.str()));
  }
}

}  // namespace
}  // namespace ksync::test
