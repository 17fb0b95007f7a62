// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::reduce (portable): concurrency, accuracy, rounding and argument checks. Every portable strategy,
// operator and value type against a host reference is in reduce_typed_test.cpp; native strategies reached
// through the bridge in bridge_typed_test.cpp and parity_test.cpp.
#include "support/errors.hpp"
#include "support/functors.hpp"
#include "support/kokkos.hpp"
#include "support/reference.hpp"
#include "support/rounding.hpp"
#include "support/types.hpp"

#include <ksync/backend.hpp>  // runs_on_host
#include <ksync/reduce.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ksync::reduce_op;
using ksync::reduce_strategy;
using ksync::test::to_device;

const std::vector<reduce_strategy> portable_strategies =
    ksync::ids_of_half<reduce_strategy>(ksync::strategy_half::portable);

// Calls on two instances of one backend at once, each into its own result.
TEST(ReduceConcurrency, TwoInstancesReduceIndependently) {
  const Kokkos::DefaultExecutionSpace exec;
  const auto instances = ksync::compat::partition_space(exec, 2);
  const auto first_host = ksync::test::exact_reduction_input<std::int64_t>(3'000'017, 1u);
  const auto second_host = ksync::test::exact_reduction_input<std::int64_t>(2'000'003, 2u);
  const auto first = to_device(first_host);
  const auto second = to_device(second_host);
  const Kokkos::View<std::int64_t> first_result("ksync::test::first");
  const Kokkos::View<std::int64_t> second_result("ksync::test::second");
  for (int round = 0; round < 3; ++round) {
    ksync::reduce(instances[0], first, reduce_op::sum, reduce_strategy::tuned, first_result);
    ksync::reduce(instances[1], second, reduce_op::sum, reduce_strategy::tuned, second_result);
    instances[0].fence("ksync::test::first");
    instances[1].fence("ksync::test::second");
    std::int64_t a = 0;
    std::int64_t b = 0;
    Kokkos::deep_copy(a, first_result);
    Kokkos::deep_copy(b, second_result);
    EXPECT_EQ(a, ksync::test::reduction_reference(first_host, reduce_op::sum));
    EXPECT_EQ(b, ksync::test::reduction_reference(second_host, reduce_op::sum));
  }
}

// 3 * 2^24 ones: a float partial that adds them one by one stops at 2^24, so a backend that lets one
// thread add more than 2^24 of them in float (OpenMP with few threads) would return far too little.
TEST(ReduceAccuracy, ManyFloatsOfOneSignSumExactly) {
  const Kokkos::DefaultExecutionSpace exec;
  constexpr int n = 3 * (1 << 24);
  const Kokkos::View<float*> ones("ksync::test::ones", n);
  Kokkos::deep_copy(exec, ones, 1.0f);
  const Kokkos::View<float> result("ksync::test::result");
  for (const auto strategy : portable_strategies) {
    SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy));
    ksync::reduce(exec, ones, reduce_op::sum, strategy, result);
    float async_sum = 0;
    Kokkos::deep_copy(async_sum, result);
    EXPECT_EQ(async_sum, static_cast<float>(n));
    EXPECT_EQ(ksync::reduce(exec, ones, reduce_op::sum, strategy), static_cast<float>(n));
  }
}

// Whether `automatic` runs the native last_block here (Kokkos::Cuda with the native half, contiguous data).
template <class T, class Exec>
constexpr bool automatic_runs_native = ksync::detail::resolve_automatic<"ksync::reduce", Exec, T>(
                                           reduce_strategy::automatic, true) == reduce_strategy::last_block;

// The bound docs/reductions.md gives the sum `strategy` computes on `exec`: the native one where `automatic`
// runs the native last_block, the portable one (double accumulation on host backends, a tree of partials on
// GPUs) elsewhere.
template <class T, class Exec>
ksync::test::rounding_check documented_sum_rounding(const Exec& exec, const std::vector<T>& host,
                                                    [[maybe_unused]] reduce_strategy strategy) {
#if KSYNC_NATIVE_BRIDGE
  if constexpr (automatic_runs_native<T, Exec>) {
    if (strategy == reduce_strategy::automatic) {
      int multiprocessors = 0;
      EXPECT_EQ(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, exec.cuda_device()),
                cudaSuccess);
      return ksync::test::native_sum_rounding(host, static_cast<std::size_t>(multiprocessors), false);
    }
  }
#endif
  return ksync::test::portable_sum_rounding(host, ksync::runs_on_host<Exec>,
                                            static_cast<std::size_t>(exec.concurrency()));
}

KSYNC_TYPED_SUITE(ReduceRounding, ksync::test::floating_types);

// Each strategy within the bound of what it runs, and each check's mutation test fails (support/rounding.hpp).
TYPED_TEST(ReduceRounding, ErrorStaysWithinTheDocumentedBound) {
  using T = TypeParam;
  using Exec = Kokkos::DefaultExecutionSpace;
  const Exec exec;
  for (const auto n : ksync::test::reduce_sizes) {
    const auto host = ksync::test::signed_fractions<T>(n, 41u + static_cast<std::uint32_t>(n));
    const auto data = to_device(host);
    for (const auto strategy : portable_strategies) {
      SCOPED_TRACE(::testing::Message() << "n = " << n << ", strategy = " << ksync::to_string(strategy));
      ksync::test::expect_rounded_sum(ksync::reduce(exec, data, reduce_op::sum, strategy),
                                      documented_sum_rounding(exec, host, strategy));
    }
  }
}

// Kokkos Tools see each reduction under its label: a Kokkos kernel's, or a region's where the native kernel
// runs (`automatic` on Kokkos::Cuda with the native half).
TEST(ReduceTools, EachCallCarriesItsLabel) {
  using Exec = Kokkos::DefaultExecutionSpace;
  const Exec exec;
  const auto data = to_device(ksync::test::exact_reduction_input<std::int64_t>(1000, 5u));
  for (const auto strategy : portable_strategies) {
    SCOPED_TRACE(::testing::Message() << "strategy = " << ksync::to_string(strategy));
    const bool native = automatic_runs_native<std::int64_t, Exec> && strategy == reduce_strategy::automatic;
    const ksync::test::tools_labels seen;
    (void)ksync::reduce(exec, data, reduce_op::max, strategy);
    (void)ksync::dot(exec, data, data, strategy);
    const std::vector<std::string> labels{"ksync::reduce::max", "ksync::dot"};
    if (native) {
      EXPECT_EQ(seen.regions, labels);
      EXPECT_TRUE(seen.kernels.empty());
    } else {
      EXPECT_FALSE(seen.kernels.empty());
      for (const auto& label : seen.both)
        EXPECT_TRUE(label == labels[0] || label == labels[1]) << label;
    }
  }
}

// A strided View keeps `automatic` portable (the native kernels read contiguous memory) and sums right.
TEST(ReduceTools, AutomaticOverAStridedViewRunsKokkosKernels) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<std::int64_t**, Kokkos::LayoutRight> pairs("ksync::test::pairs", 1000, 2);
  Kokkos::deep_copy(exec, pairs, 3);
  const auto column = Kokkos::subview(pairs, Kokkos::ALL, 0);
  ASSERT_FALSE(column.span_is_contiguous());
  const ksync::test::tools_labels seen;
  EXPECT_EQ(ksync::reduce(exec, column), 3000);
  EXPECT_FALSE(seen.kernels.empty());
  EXPECT_TRUE(seen.regions.empty());
}

// The bounds are tight enough to matter: for the largest test size a sum that returned 0 fails each of them
// (the host bound, 3.8 here with its float runs of 128 terms; the portable GPU bound, 7.7; the native bound,
// about 4.2 without atomics (what `automatic` runs on Kokkos::Cuda) and 18.7 with them, with an H200's 132
// multiprocessors and 270,336 resident threads) against |sum| = 175.
// (The worst-case bound gamma(n - 1) * sum |x| is about 31,700 here: 0 passes it, so it would catch nothing.)
TEST(ReduceRoundingBounds, AZeroSumFailsEveryDocumentedBound) {
  const auto host = ksync::test::signed_fractions<float>(1'000'003, 41u + 1'000'003u);
  const ksync::test::rounding_check checks[] = {
      ksync::test::portable_sum_rounding(host, true, 2), ksync::test::portable_sum_rounding(host, false, 270'336),
      ksync::test::native_sum_rounding(host, 132, false), ksync::test::native_sum_rounding(host, 132, true)};
  for (const auto& check : checks) {
    SCOPED_TRACE(::testing::Message() << "bound = " << static_cast<double>(check.bound));
    EXPECT_FALSE(ksync::test::within_bound(0, check.exact, check.bound));
  }
}

TEST(ReduceArguments, StrategyNamesRoundTripAndUnknownNamesAreRejected) {
  for (const auto strategy : ksync::all_reduce_strategies)
    EXPECT_EQ(ksync::reduce_strategy_from_string(ksync::to_string(strategy)), strategy);
  try {
    (void)ksync::reduce_strategy_from_string("fastest");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("name = \"fastest\""), std::string::npos) << error.what();
  }
}

TEST(ReduceArguments, DotRejectsViewsOfDifferentExtents) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<double*> x("ksync::test::x", 10);
  const Kokkos::View<double*> y("ksync::test::y", 11);
  try {
    (void)ksync::dot(exec, x, y);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "ksync::dot: y.extent(0) = 11 but x.extent(0) = 10");
  }
}

TEST(ReduceArguments, AValueThatIsNoStrategyIsRefused) {
  const Kokkos::View<float*> data("ksync::test::data", 10);
  EXPECT_TRUE(ksync::test::refuses(
      [&] {
        (void)ksync::reduce(Kokkos::DefaultExecutionSpace{}, data, reduce_op::sum, static_cast<reduce_strategy>(99));
      },
      "ksync::reduce: strategy = 99 is not a reduce_strategy"));
}

// Native strategies run ksync::cuda's kernels: anywhere but Kokkos::Cuda with the native half built they
// are refused by name, before any work.
TEST(ReduceArguments, NativeStrategiesAreRefusedWhereTheBridgeDoesNotExist) {
  KSYNC_SKIP_WHERE_THE_BRIDGE_EXISTS();
  const Kokkos::View<float*> data("ksync::test::data", 10);
  for (const auto strategy : ksync::all_reduce_strategies) {
    if (!ksync::is_native(strategy)) continue;
    EXPECT_TRUE(ksync::test::refuses(
        [&] { (void)ksync::reduce(Kokkos::DefaultExecutionSpace{}, data, reduce_op::sum, strategy); },
        "ksync::reduce: strategy = " + std::string(ksync::to_string(strategy)) +
            " runs ksync::cuda's kernels: it needs exec to be Kokkos::Cuda"));
  }
}

}  // namespace
