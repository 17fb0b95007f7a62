// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::parallel_reduce against host references: every portable index strategy, and every reduce strategy
// reachable here (the native ones through the bridge on Kokkos::Cuda), int32 and int64 counts, a host scalar,
// a rank-0 View and Kokkos' reducers as the result, bad input refused. The 2-D form: parallel_reduce_pairs_test.cpp.
#include "support/errors.hpp"
#include "support/kokkos.hpp"

#include <ksync/parallel_reduce.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace ksync::test {
namespace {

// acc += i: the sum n (n - 1) / 2 is exact in an int64, and a missed or repeated index changes it.
template <class Index>
struct SumOfIndices {
  KOKKOS_FUNCTION void operator()(Index i, std::int64_t& acc) const { acc += i; }
};

// acc += data(i), data holding small integers: every float and double partial sum is exact.
template <class T>
struct SumOf {
  Kokkos::View<const T*> data;
  KOKKOS_FUNCTION void operator()(std::int64_t i, T& acc) const { acc += data(i); }
};

// The value of index i folded into a MinLoc / MaxLoc pair, or into a plain min / max.
template <class T>
struct LocateExtremes {
  Kokkos::View<const T*> data;
  bool minimum;
  KOKKOS_FUNCTION void operator()(std::int64_t i, Kokkos::ValLocScalar<T, std::int64_t>& acc) const {
    if (minimum ? data(i) < acc.val : data(i) > acc.val) {
      acc.val = data(i);
      acc.loc = i;
    }
  }
  KOKKOS_FUNCTION void operator()(std::int64_t i, T& acc) const {
    acc = minimum ? (data(i) < acc ? data(i) : acc) : (data(i) > acc ? data(i) : acc);
  }
};

const std::vector<std::int64_t> index_counts{0, 1, 3, 4, 5, 255, 1'000, 4'099, 1'000'003};

// Small integers, -50 .. 49, in a scrambled order: each extreme appears several times at large n.
template <class T>
std::vector<T> small_integers(std::int64_t n) {
  std::vector<T> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    values[static_cast<std::size_t>(i)] = static_cast<T>((i * 7919) % 100 - 50);
  return values;
}

template <class Index>
void expect_sum_of_indices(index_strategy strategy) {
  const Kokkos::DefaultExecutionSpace exec;
  for (const std::int64_t n : index_counts) {
    SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy) << ", n = " << n);
    std::int64_t sum = -1;
    ksync::parallel_reduce(exec, static_cast<Index>(n), SumOfIndices<Index>{}, sum, strategy);
    EXPECT_EQ(sum, n * (n - 1) / 2);
  }
}

TEST(ParallelReduce, EveryPortableStrategySumsIntoAHostScalarWithInt32Counts) {
  for (const auto strategy : ids_of_half<index_strategy>(strategy_half::portable))
    expect_sum_of_indices<std::int32_t>(strategy);
}

TEST(ParallelReduce, EveryPortableStrategySumsIntoAHostScalarWithInt64Counts) {
  for (const auto strategy : ids_of_half<index_strategy>(strategy_half::portable))
    expect_sum_of_indices<std::int64_t>(strategy);
}

TEST(ParallelReduce, ARankZeroViewReceivesTheSumAsynchronously) {
  const Kokkos::DefaultExecutionSpace exec;
  for (const auto strategy : ids_of_half<index_strategy>(strategy_half::portable)) {
    for (const std::int64_t n : index_counts) {
      SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy) << ", n = " << n);
      const auto host = small_integers<double>(n);
      const auto data = to_device(host);
      const Kokkos::View<double> result("ksync::test::result");
      ksync::parallel_reduce(exec, n, SumOf<double>{data}, result, strategy);
      double value = 0;
      Kokkos::deep_copy(exec, value, result);
      exec.fence("ksync::test::result");
      double expected = 0;
      for (const double x : host)
        expected += x;
      EXPECT_EQ(value, expected);
    }
  }
}

template <class T>
void expect_reducers_match(index_strategy strategy) {
  const Kokkos::DefaultExecutionSpace exec;
  for (const std::int64_t n : index_counts) {
    if (n == 0) continue;
    SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy) << ", n = " << n);
    const auto host = small_integers<T>(n);
    const auto data = to_device(host);
    const auto [low, high] = std::minmax_element(host.begin(), host.end());
    T sum = 0;
    ksync::parallel_reduce(exec, n, SumOf<T>{data}, Kokkos::Sum<T>(sum), strategy);
    T expected_sum = 0;
    for (const T x : host)
      expected_sum += x;
    EXPECT_EQ(sum, expected_sum);
    T smallest{};
    T largest{};
    ksync::parallel_reduce(exec, n, LocateExtremes<T>{data, true}, Kokkos::Min<T>(smallest), strategy);
    ksync::parallel_reduce(exec, n, LocateExtremes<T>{data, false}, Kokkos::Max<T>(largest), strategy);
    EXPECT_EQ(smallest, *low);
    EXPECT_EQ(largest, *high);
    Kokkos::ValLocScalar<T, std::int64_t> min_at{};
    Kokkos::ValLocScalar<T, std::int64_t> max_at{};
    ksync::parallel_reduce(exec, n, LocateExtremes<T>{data, true}, Kokkos::MinLoc<T, std::int64_t>(min_at), strategy);
    ksync::parallel_reduce(exec, n, LocateExtremes<T>{data, false}, Kokkos::MaxLoc<T, std::int64_t>(max_at), strategy);
    // Several indices hold each extreme; which one a location names depends on the combining order.
    EXPECT_EQ(min_at.val, *low);
    ASSERT_TRUE(min_at.loc >= 0 && min_at.loc < n);
    EXPECT_EQ(host[static_cast<std::size_t>(min_at.loc)], *low);
    EXPECT_EQ(max_at.val, *high);
    ASSERT_TRUE(max_at.loc >= 0 && max_at.loc < n);
    EXPECT_EQ(host[static_cast<std::size_t>(max_at.loc)], *high);
  }
}

TEST(ParallelReduce, KokkosReducersSumMinMaxAndLocateFloats) {
  for (const auto strategy : ids_of_half<index_strategy>(strategy_half::portable))
    expect_reducers_match<float>(strategy);
}

TEST(ParallelReduce, KokkosReducersSumMinMaxAndLocateInt32) {
  for (const auto strategy : ids_of_half<index_strategy>(strategy_half::portable))
    expect_reducers_match<std::int32_t>(strategy);
}

// Kokkos Tools see each reduction under its label: the caller's, or "ksync::parallel_reduce" — a Kokkos
// kernel's, or a region's where the native kernel folds it (automatic on Kokkos::Cuda with the native half).
TEST(ParallelReduce, KernelsCarryTheirLabelForKokkosTools) {
  const Kokkos::DefaultExecutionSpace exec;
  const bool native_reachable =
      !reachable<Kokkos::DefaultExecutionSpace>(std::array{reduce_strategy::last_block}).empty();
  for (const auto strategy : ids_of_half<index_strategy>(strategy_half::portable)) {
    SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy));
    const tools_labels labels;
    std::int64_t sum = 0;
    ksync::parallel_reduce("my_app::sum", exec, 10, SumOfIndices<std::int32_t>{}, sum, strategy);
    EXPECT_EQ(sum, 45);
    ksync::parallel_reduce(exec, 10, SumOfIndices<std::int32_t>{}, sum, strategy);
    const bool folds_natively = native_reachable && strategy == index_strategy::automatic;
    const std::vector<std::string> expected{"my_app::sum", "ksync::parallel_reduce"};
    EXPECT_EQ(folds_natively ? labels.regions : labels.kernels, expected);
    EXPECT_TRUE((folds_natively ? labels.kernels : labels.regions).empty());
  }
}

TEST(ParallelReduceArguments, ANegativeCountIsRefused) {
  const Kokkos::DefaultExecutionSpace exec;
  std::int64_t sum = 0;
  EXPECT_TRUE(refuses([&] { ksync::parallel_reduce(exec, -2, SumOfIndices<std::int32_t>{}, sum); },
                      "ksync::parallel_reduce: n = -2 is negative"));
}

TEST(ParallelReduceArguments, NativeStrategiesAreRefusedNamingThePortableOnes) {
  const Kokkos::DefaultExecutionSpace exec;
  std::int64_t sum = 0;
  std::ostringstream portable;  // the portable rows' names, as the message lists them
  portable << ksync::names_of_half<ksync::index_strategy>{ksync::strategy_half::portable};
  for (const auto strategy : ksync::implementations_of_half<ksync::index_strategy>(ksync::strategy_half::native)) {
    EXPECT_TRUE(refuses([&] { ksync::parallel_reduce(exec, 4, SumOfIndices<std::int32_t>{}, sum, strategy); },
                        "ksync::parallel_reduce: strategy = " + std::string(ksync::to_string(strategy)) +
                            " maps ksync::cuda::parallel_for's indices; parallel_reduce runs " + portable.str() +
                            ", or a reduce_strategy"));
  }
}

// --- With a reduce_strategy: f's terms folded as ksync::reduce folds a View.

template <class Index>
void expect_reduce_strategy_sums(reduce_strategy strategy) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<std::int64_t> in_view("ksync::test::result");
  for (const std::int64_t n : index_counts) {
    SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy) << ", n = " << n);
    std::int64_t sum = -1;
    ksync::parallel_reduce(exec, static_cast<Index>(n), SumOfIndices<Index>{}, sum, strategy);
    EXPECT_EQ(sum, n * (n - 1) / 2);
    ksync::parallel_reduce(exec, static_cast<Index>(n), SumOfIndices<Index>{}, in_view, strategy);
    std::int64_t from_view = -1;
    Kokkos::deep_copy(exec, from_view, in_view);
    exec.fence("ksync::test::result");
    EXPECT_EQ(from_view, n * (n - 1) / 2);
  }
}

TEST(ParallelReduce, EveryReachableReduceStrategySumsWithInt32AndInt64Counts) {
  for (const auto strategy : reachable<Kokkos::DefaultExecutionSpace>(all_reduce_strategies)) {
    expect_reduce_strategy_sums<std::int32_t>(strategy);
    expect_reduce_strategy_sums<std::int64_t>(strategy);
  }
}

template <class T>
void expect_sum_min_max_reducers(reduce_strategy strategy) {
  const Kokkos::DefaultExecutionSpace exec;
  for (const std::int64_t n : index_counts) {
    SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy) << ", n = " << n);
    const auto host = small_integers<T>(n);
    const auto data = to_device(host);
    T sum = -1;
    ksync::parallel_reduce(exec, n, SumOf<T>{data}, Kokkos::Sum<T>(sum), strategy);
    T expected_sum = 0;
    for (const T x : host)
      expected_sum += x;
    EXPECT_EQ(sum, expected_sum);
    if (n == 0) continue;
    const auto [low, high] = std::minmax_element(host.begin(), host.end());
    T smallest{};
    ksync::parallel_reduce(exec, n, LocateExtremes<T>{data, true}, Kokkos::Min<T>(smallest), strategy);
    EXPECT_EQ(smallest, *low);
    // Max into a device View: asynchronous.
    const Kokkos::View<T> largest("ksync::test::largest");
    ksync::parallel_reduce(exec, n, LocateExtremes<T>{data, false},
                           Kokkos::Max<T, Kokkos::DefaultExecutionSpace::memory_space>(largest), strategy);
    T largest_value{};
    Kokkos::deep_copy(exec, largest_value, largest);
    exec.fence("ksync::test::largest");
    EXPECT_EQ(largest_value, *high);
  }
}

TEST(ParallelReduce, EveryReachableReduceStrategyTakesSumMinAndMaxReducersOfDoublesAndInt32) {
  for (const auto strategy : reachable<Kokkos::DefaultExecutionSpace>(all_reduce_strategies)) {
    expect_sum_min_max_reducers<double>(strategy);
    expect_sum_min_max_reducers<std::int32_t>(strategy);
  }
}

TEST(ParallelReduceArguments, NativeReduceStrategiesAreRefusedWhereTheBridgeDoesNotExist) {
  KSYNC_SKIP_WHERE_THE_BRIDGE_EXISTS();
  const Kokkos::DefaultExecutionSpace exec;
  std::int64_t sum = 0;
  for (const auto strategy : ids_of_half<reduce_strategy>(strategy_half::native)) {
    if (!is_native(strategy)) continue;
    EXPECT_TRUE(refuses([&] { ksync::parallel_reduce(exec, 4, SumOfIndices<std::int32_t>{}, sum, strategy); },
                        "ksync::parallel_reduce: strategy = " + std::string(ksync::to_string(strategy)) +
                            " runs ksync::cuda's kernels"));
  }
}

}  // namespace
}  // namespace ksync::test
