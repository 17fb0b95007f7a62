// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The 2-D ksync::parallel_reduce (f(i, j, acc)) against host references: every portable index strategy and
// every reduce strategy reachable here, either order, a host scalar, a rank-0 View and Kokkos' reducers as the
// result, tuned's line-by-line walk on host backends, bad extents refused. Its own translation unit: every
// 2-D call instantiates each order's kernels for every strategy, which nvcc takes minutes over.
#include "support/errors.hpp"
#include "support/kokkos.hpp"
#include "support/reference.hpp"

#include <ksync/parallel_reduce.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ksync::test {
namespace {

// The 2-D form: acc += i * cols + j, so the sum over rows x cols is N (N - 1) / 2 with N = rows * cols, and a
// missed or repeated pair changes it; a Max reducer over the same value, into a device View, is N - 1.
template <class Index>
struct SumOfFlatIndices {
  Index cols;
  KOKKOS_FUNCTION void operator()(Index i, Index j, std::int64_t& acc) const {
    acc += static_cast<std::int64_t>(i) * cols + j;
  }
};

template <class Index>
struct LargestFlatIndex {
  Index cols;
  KOKKOS_FUNCTION void operator()(Index i, Index j, std::int64_t& acc) const {
    const std::int64_t value = static_cast<std::int64_t>(i) * cols + j;
    acc = value > acc ? value : acc;
  }
};

template <class Index, class Strategy>
void expect_sum_of_pairs(Strategy strategy, iterate order) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<std::int64_t> largest("ksync::test::largest");
  for (const auto& [rows, cols] : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 4},
                                                                                     {4, 0},
                                                                                     {1, 1},
                                                                                     {3, 7},
                                                                                     {7, 3},
                                                                                     {33, 31},
                                                                                     {1'000, 1'001},
                                                                                     {1, 100'003},
                                                                                     {23'339, 3},
                                                                                     {6'007, 5},
                                                                                     {4'999, 15}}) {
    SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy)
                                      << ", order = " << ksync::to_string(order) << ", " << rows << " x " << cols);
    const std::int64_t n = rows * cols;
    const SumOfFlatIndices<Index> f{static_cast<Index>(cols)};
    std::int64_t sum = -1;
    ksync::parallel_reduce(exec, static_cast<Index>(rows), static_cast<Index>(cols), f, sum, strategy, order);
    EXPECT_EQ(sum, n * (n - 1) / 2);
    if (n == 0) continue;
    ksync::parallel_reduce(
        exec, static_cast<Index>(rows), static_cast<Index>(cols), LargestFlatIndex<Index>{static_cast<Index>(cols)},
        Kokkos::Max<std::int64_t, Kokkos::DefaultExecutionSpace::memory_space>(largest), strategy, order);
    std::int64_t largest_value = -1;
    Kokkos::deep_copy(exec, largest_value, largest);
    exec.fence("ksync::test::largest");
    EXPECT_EQ(largest_value, n - 1);
  }
}

TEST(ParallelReducePairs, EveryPortableAndReachableReduceStrategySumsInEitherOrder) {
  for (const auto order : {iterate::left, iterate::right}) {
    for (const auto strategy : ids_of_half<index_strategy>(strategy_half::portable)) {
      expect_sum_of_pairs<std::int32_t>(strategy, order);
      expect_sum_of_pairs<std::int64_t>(strategy, order);
    }
    for (const auto strategy : reachable<Kokkos::DefaultExecutionSpace>(all_reduce_strategies)) {
      expect_sum_of_pairs<std::int32_t>(strategy, order);
      expect_sum_of_pairs<std::int64_t>(strategy, order);
    }
  }
}

// f(i, j, acc) for MinLoc: the value of pair (i, j) is data(i * cols + j), its location the flat index.
struct LocateSmallestPair {
  Kokkos::View<const double*> data;
  std::int64_t cols;
  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t j,
                                  Kokkos::ValLocScalar<double, std::int64_t>& acc) const {
    const std::int64_t k = i * cols + j;
    if (data(k) < acc.val) {
      acc.val = data(k);
      acc.loc = k;
    }
  }
};

// A MinLoc reducer over a host scalar and a plain sum into a rank-0 View, in each portable index strategy and
// order, on shapes whose lines fill the threads and shapes whose single line does not.
TEST(ParallelReducePairs, MinLocIntoAHostScalarAndASumIntoARankZeroView) {
  const Kokkos::DefaultExecutionSpace exec;
  for (const auto& [rows, cols] :
       std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 3'001}, {3'001, 1}, {97, 89}}) {
    auto host = small_integers<double>(static_cast<std::size_t>(rows * cols), 5);
    host[static_cast<std::size_t>(rows * cols / 2)] = -1000;  // one smallest value
    const auto data = to_device(host);
    for (const auto order : {iterate::left, iterate::right}) {
      for (const auto strategy : ids_of_half<index_strategy>(strategy_half::portable)) {
        SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy)
                                          << ", order = " << ksync::to_string(order) << ", " << rows << " x " << cols);
        Kokkos::ValLocScalar<double, std::int64_t> smallest{};
        ksync::parallel_reduce(exec, rows, cols, LocateSmallestPair{.data = data, .cols = cols},
                               Kokkos::MinLoc<double, std::int64_t>(smallest), strategy, order);
        EXPECT_EQ(smallest.val, -1000.0);
        EXPECT_EQ(smallest.loc, rows * cols / 2);
        const Kokkos::View<std::int64_t> sum("ksync::test::sum");
        ksync::parallel_reduce(exec, rows, cols, SumOfFlatIndices<std::int64_t>{cols}, sum, strategy, order);
        std::int64_t from_view = -1;
        Kokkos::deep_copy(exec, from_view, sum);
        exec.fence("ksync::test::sum");
        EXPECT_EQ(from_view, rows * cols * (rows * cols - 1) / 2);
      }
    }
  }
}

// acc += data(i * cols + j) * (1 + i % 3): integers 0 .. 7, every float partial sum exact; a pair mapped to
// the wrong line changes its weight.
template <class T>
struct WeightedPairs {
  Kokkos::View<const T*> data;
  std::int64_t cols;
  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t j, T& acc) const {
    acc += data(i * cols + j) * static_cast<T>(1 + i % 3);
  }
};

// On host backends tuned (what automatic runs there for a sum into a host scalar or a rank-0 View) takes a 2-D
// functor's terms line by line, and its lanes' chunks end inside lines: lines shorter and longer than a float
// run (32 x 128 terms), one line alone, and lines of 1, 2, 3, 4, 7, 8, 13 and 16 terms (under 16,
// TunedFold::fold_short_lines folds whole lines, in groups where they are shorter than its eight accumulators;
// expect_sum_of_pairs adds lines of 5 and 15, and a maximum, through the same walk).
template <class T>
void expect_weighted_pairs() {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<T> sum_view("ksync::test::sum");
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes{{7, 4'099},  {4'099, 7},  {129, 257},  {256, 256},
                                                                  {1, 70'001}, {70'001, 1}, {23'339, 3}, {2, 35'003},
                                                                  {17'501, 4}, {9'001, 8},  {5'003, 13}, {4'001, 16}};
  for (const auto& [rows, cols] : shapes) {
    const auto host = small_integers<T>(static_cast<std::size_t>(rows * cols), 9);
    const auto data = to_device(host);
    T expected = 0;
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < cols; ++j)
        expected += host[static_cast<std::size_t>(i * cols + j)] * static_cast<T>(1 + i % 3);
    }
    const WeightedPairs<T> f{.data = data, .cols = cols};
    for (const auto order : {iterate::left, iterate::right}) {
      SCOPED_TRACE(::testing::Message() << "order = " << ksync::to_string(order) << ", " << rows << " x " << cols);
      T by_automatic = -1;
      ksync::parallel_reduce(exec, rows, cols, f, by_automatic, index_strategy::automatic, order);
      EXPECT_EQ(by_automatic, expected);
      T by_tuned = -1;
      ksync::parallel_reduce(exec, rows, cols, f, by_tuned, reduce_strategy::tuned, order);
      EXPECT_EQ(by_tuned, expected);
      ksync::parallel_reduce(exec, rows, cols, f, sum_view, index_strategy::automatic, order);
      T from_view = -1;
      Kokkos::deep_copy(exec, from_view, sum_view);
      exec.fence("ksync::test::sum");
      EXPECT_EQ(from_view, expected);
    }
  }
}

TEST(ParallelReducePairs, TunedFoldsLinesThatLanesSplitExactly) {
  expect_weighted_pairs<float>();
  expect_weighted_pairs<double>();
}

TEST(ParallelReducePairs, KernelsCarryTheirLabelAndBadExtentsAreRefused) {
  const Kokkos::DefaultExecutionSpace exec;
  const SumOfFlatIndices<std::int32_t> f{10};
  std::int64_t sum = 0;
  {
    const tools_labels labels;
    ksync::parallel_reduce("my_app::sum", exec, 10, 10, f, sum, index_strategy::kokkos);
    ksync::parallel_reduce(exec, 10, 10, f, sum, index_strategy::kokkos);
    EXPECT_EQ(labels.kernels, (std::vector<std::string>{"my_app::sum", "ksync::parallel_reduce"}));
  }
  EXPECT_TRUE(
      refuses([&] { ksync::parallel_reduce(exec, 10, -1, f, sum); }, "ksync::parallel_reduce: cols = -1 is negative"));
  EXPECT_TRUE(refuses([&] { ksync::parallel_reduce(exec, 100'000, 100'000, f, sum); },
                      "ksync::parallel_reduce: rows x cols = 100000 x 100000 does not fit an std::int32_t index"));
}

}  // namespace
}  // namespace ksync::test
