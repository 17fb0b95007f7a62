// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::parallel_for (portable, and native through the bridge on Kokkos::Cuda): every index (and every pair
// of the 2-D form, in either order) reached exactly once, with int32 and int64 counts, the kernel labelled for
// Kokkos Tools, bad input refused.
#include "support/errors.hpp"
#include "support/kokkos.hpp"

#include <ksync/parallel_for.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ksync::test {
namespace {

// counts(i) += 1 for index i: a missed index stays 0, an index called twice reaches 2.
template <class Index>
struct CountCalls {
  Kokkos::View<std::int32_t*> counts;
  KOKKOS_FUNCTION void operator()(Index i) const { Kokkos::atomic_add(&counts(i), 1); }
};

// The sizes every strategy runs: empty, below and across a batch of 4, a GPU block, and odd sizes past both.
const std::vector<std::int64_t> index_counts{0, 1, 3, 4, 5, 255, 1'000, 4'099, 1'000'003};

template <class Index>
void expect_each_index_once(index_strategy strategy) {
  const Kokkos::DefaultExecutionSpace exec;
  for (const std::int64_t n : index_counts) {
    SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy) << ", n = " << n);
    const Kokkos::View<std::int32_t*> counts("ksync::test::counts", n);
    ksync::parallel_for(exec, static_cast<Index>(n), CountCalls<Index>{counts}, strategy);
    const auto host = to_host(counts);
    std::int64_t wrong = 0;
    for (const auto count : host)
      wrong += count == 1 ? 0 : 1;
    EXPECT_EQ(wrong, 0);
  }
}

TEST(ParallelFor, EveryReachableStrategyCallsFOncePerIndexWithInt32Counts) {
  for (const auto strategy : reachable<Kokkos::DefaultExecutionSpace>(all_index_strategies))
    expect_each_index_once<std::int32_t>(strategy);
}

TEST(ParallelFor, EveryReachableStrategyCallsFOncePerIndexWithInt64Counts) {
  for (const auto strategy : reachable<Kokkos::DefaultExecutionSpace>(all_index_strategies))
    expect_each_index_once<std::int64_t>(strategy);
}

// A View's size_t extent is an ordinary count: f receives an std::int64_t.
TEST(ParallelFor, AnUnsignedCountPassesAnInt64Index) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<std::int32_t*> counts("ksync::test::counts", 777);
  ksync::parallel_for(exec, counts.extent(0), CountCalls<std::int64_t>{counts});
  const auto host = to_host(counts);
  EXPECT_EQ(std::vector<std::int32_t>(host.size(), 1), host);
}

// Kokkos Tools see each kernel under its label (a native strategy: a region of that label).
TEST(ParallelFor, KernelsCarryTheirLabelForKokkosTools) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<std::int32_t*> counts("ksync::test::counts", 100);
  for (const auto strategy : reachable<Kokkos::DefaultExecutionSpace>(all_index_strategies)) {
    SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy));
    const tools_labels labels;
    ksync::parallel_for("my_app::count", exec, 100, CountCalls<std::int32_t>{counts}, strategy);
    ksync::parallel_for(exec, 100, CountCalls<std::int32_t>{counts}, strategy);
    EXPECT_EQ(labels.both, (std::vector<std::string>{"my_app::count", "ksync::parallel_for"}));
  }
}

// `automatic` runs ksync::cuda::parallel_for where the bridge reaches it (Kokkos::Cuda with the native half,
// this file compiled as CUDA): Kokkos Tools see the call's region and no Kokkos kernel. Elsewhere it is a
// Kokkos kernel of the call's label.
TEST(ParallelFor, AutomaticRunsTheNativeKernelExactlyWhereTheBridgeReachesIt) {
  using Exec = Kokkos::DefaultExecutionSpace;
#if KSYNC_NATIVE_BRIDGE && defined(__CUDACC__)
  constexpr bool bridge_reaches = std::is_same_v<Exec, Kokkos::Cuda>;
#else
  constexpr bool bridge_reaches = false;
#endif
  static_assert(ksync::detail::automatic_for_runs_native<Exec, std::int32_t> == bridge_reaches);
  static_assert(ksync::detail::automatic_for_runs_native<Exec, std::int64_t> == bridge_reaches);
  const Exec exec;
  const Kokkos::View<std::int32_t*> counts("ksync::test::counts", 4'099);
  const std::vector<std::string> labels{"my_app::count"};
  {
    const tools_labels seen;
    ksync::parallel_for("my_app::count", exec, 4'099, CountCalls<std::int32_t>{counts});
    EXPECT_EQ(bridge_reaches ? seen.regions : seen.kernels, labels);
    EXPECT_TRUE((bridge_reaches ? seen.kernels : seen.regions).empty());
  }
  const auto host = to_host(counts);
  EXPECT_EQ(std::vector<std::int32_t>(host.size(), 1), host);
}

// The 2-D form: counts(i, j) += 1 for the pair (i, j).
template <class Index>
struct CountPairs {
  Kokkos::View<std::int32_t**> counts;
  KOKKOS_FUNCTION void operator()(Index i, Index j) const { Kokkos::atomic_add(&counts(i, j), 1); }
};

// Empty either way, one row or column, shapes below, across and past a batch, a warp and a block.
const std::vector<std::pair<std::int64_t, std::int64_t>> pair_extents{
    {0, 5}, {5, 0}, {1, 1}, {3, 7}, {7, 3}, {1, 4'099}, {4'099, 1}, {33, 31}, {257, 1'023}, {1'000, 1'001}};

// The pairs whose count is not 1.
std::int64_t pairs_not_reached_once(const Kokkos::View<std::int32_t**>& counts) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, counts);
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < host.extent(0); ++i)
    for (std::size_t j = 0; j < host.extent(1); ++j)
      wrong += host(i, j) == 1 ? 0 : 1;
  return wrong;
}

template <class Index>
void expect_each_pair_once(index_strategy strategy, iterate order) {
  const Kokkos::DefaultExecutionSpace exec;
  for (const auto& [rows, cols] : pair_extents) {
    SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy)
                                      << ", order = " << ksync::to_string(order) << ", " << rows << " x " << cols);
    const Kokkos::View<std::int32_t**> counts("ksync::test::counts", rows, cols);
    ksync::parallel_for(exec, static_cast<Index>(rows), static_cast<Index>(cols), CountPairs<Index>{counts}, strategy,
                        order);
    EXPECT_EQ(pairs_not_reached_once(counts), 0);
  }
}

TEST(ParallelForPairs, EveryReachableStrategyCallsFOncePerPairInEitherOrder) {
  for (const auto strategy : reachable<Kokkos::DefaultExecutionSpace>(all_index_strategies)) {
    for (const auto order : {iterate::left, iterate::right}) {
      expect_each_pair_once<std::int32_t>(strategy, order);
      expect_each_pair_once<std::int64_t>(strategy, order);
    }
  }
}

// With no order named, neighbouring work items step through the index the execution space's default layout
// strides by 1, as MDRangePolicy's default iteration does; and extents of mixed types pass std::int64_t.
TEST(ParallelForPairs, TheDefaultOrderFollowsTheDefaultLayoutAndMixedExtentsPassInt64) {
  using Exec = Kokkos::DefaultExecutionSpace;
  // MDRangePolicy's default inner direction walks the stride-1 index of the space's default layout.
  static_assert(ksync::detail::layout_order<Exec> ==
                (std::is_same_v<Exec::array_layout, Kokkos::LayoutLeft> ? iterate::left : iterate::right));
  static_assert(ksync::detail::layout_order<Kokkos::DefaultHostExecutionSpace> == iterate::right);
  static_assert(std::is_same_v<ksync::detail::pair_index_type_of<std::int32_t, std::size_t>, std::int64_t>);
  const Exec exec;
  const Kokkos::View<std::int32_t**> counts("ksync::test::counts", 40, 70);
  ksync::parallel_for(exec, counts.extent(0), 70, CountPairs<std::int64_t>{counts});
  EXPECT_EQ(pairs_not_reached_once(counts), 0);
}

TEST(ParallelForPairs, KernelsCarryTheirLabelForKokkosTools) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<std::int32_t**> counts("ksync::test::counts", 10, 10);
  for (const auto strategy : reachable<Kokkos::DefaultExecutionSpace>(all_index_strategies)) {
    SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy));
    const tools_labels labels;
    ksync::parallel_for("my_app::count", exec, 10, 10, CountPairs<std::int32_t>{counts}, strategy);
    ksync::parallel_for(exec, 10, 10, CountPairs<std::int32_t>{counts}, strategy);
    EXPECT_EQ(labels.both, (std::vector<std::string>{"my_app::count", "ksync::parallel_for"}));
  }
}

TEST(ParallelForPairsArguments, BadExtentsAndOrdersAreRefused) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<std::int32_t**> counts("ksync::test::counts", 1, 1);
  EXPECT_TRUE(refuses([&] { ksync::parallel_for(exec, -3, 4, CountPairs<std::int32_t>{counts}); },
                      "ksync::parallel_for: rows = -3 is negative"));
  EXPECT_TRUE(refuses([&] { ksync::parallel_for(exec, 4, std::int64_t{-2}, CountPairs<std::int64_t>{counts}); },
                      "ksync::parallel_for: cols = -2 is negative"));
  EXPECT_TRUE(refuses([&] { ksync::parallel_for(exec, 65'536, 65'536, CountPairs<std::int32_t>{counts}); },
                      "ksync::parallel_for: rows x cols = 65536 x 65536 does not fit an std::int32_t index: pass "
                      "std::int64_t extents"));
  EXPECT_TRUE(refuses(
      [&] {
        ksync::parallel_for(exec, 1, 1, CountPairs<std::int32_t>{counts}, index_strategy::automatic,
                            static_cast<iterate>(7));
      },
      "ksync::parallel_for: order = 7 is not a ksync::iterate"));
}

TEST(ParallelForArguments, ANegativeCountIsRefused) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<std::int32_t*> counts("ksync::test::counts", 1);
  EXPECT_TRUE(refuses([&] { ksync::parallel_for(exec, -3, CountCalls<std::int32_t>{counts}); },
                      "ksync::parallel_for: n = -3 is negative"));
  EXPECT_TRUE(refuses([&] { ksync::parallel_for(exec, std::int64_t{-1}, CountCalls<std::int64_t>{counts}); },
                      "ksync::parallel_for: n = -1 is negative"));
}

TEST(ParallelForArguments, AValuePastTheRowsIsRefused) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<std::int32_t*> counts("ksync::test::counts", 1);
  EXPECT_TRUE(
      refuses([&] { ksync::parallel_for(exec, 1, CountCalls<std::int32_t>{counts}, static_cast<index_strategy>(42)); },
              "ksync::parallel_for: strategy = 42 is not an index_strategy"));
}

TEST(ParallelForArguments, NativeStrategiesAreRefusedWhereTheBridgeDoesNotExist) {
  KSYNC_SKIP_WHERE_THE_BRIDGE_EXISTS();
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<std::int32_t*> counts("ksync::test::counts", 1);
  for (const auto strategy : ids_of_half<index_strategy>(strategy_half::native)) {
    if (!is_native(strategy)) continue;
    const std::string refusal =
        "ksync::parallel_for: strategy = " + std::string(ksync::to_string(strategy)) + " runs ksync::cuda's kernels";
    EXPECT_TRUE(refuses([&] { ksync::parallel_for(exec, 1, CountCalls<std::int32_t>{counts}, strategy); }, refusal));
    const Kokkos::View<std::int32_t**> pair_counts("ksync::test::counts", 1, 1);
    EXPECT_TRUE(
        refuses([&] { ksync::parallel_for(exec, 1, 1, CountPairs<std::int32_t>{pair_counts}, strategy); }, refusal));
  }
}

}  // namespace
}  // namespace ksync::test
