// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The bridge's refusals (strided Views, clusters where they cannot run) and its reach past 2^32 elements;
// every strategy and value type against the reference is in bridge_typed_test.cpp. Needs the CUDA backend
// and a GPU; skipped elsewhere.
#include "support/bridge.hpp"
#include "support/functors.hpp"
#include "support/gpu.hpp"
#include "support/kokkos.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

#include <ksync/ksync.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using ksync::reduce_op;
using ksync::reduce_strategy;

// Where clusters cannot run, the cluster strategy reached through Kokkos is refused as the native call is.
TEST(BridgeArgumentsGpu, ClusterIsRefusedNamingTheDeviceWhereClustersCannotRun) {
  KSYNC_REQUIRE_BRIDGE();
  const auto& support = ksync::test::cluster_support_here();
  if (support.available) GTEST_SKIP() << "ksync-skip: clusters run here; BridgeGpu runs the strategy";
  const Kokkos::View<float*> data("ksync::test::data", 1000);
  try {
    (void)ksync::reduce(Exec{}, data, reduce_op::sum, reduce_strategy::cluster);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find(support.reason), std::string::npos) << error.what();
  }
}

TEST(BridgeArgumentsGpu, StridedViewsAreRefusedByNativeStrategies) {
  KSYNC_REQUIRE_BRIDGE();
  const Kokkos::View<float**, Kokkos::LayoutLeft> matrix("ksync::test::matrix", 2, 100);
  const auto row = Kokkos::subview(matrix, 0, Kokkos::ALL);  // stride 2
  try {
    (void)ksync::reduce(Exec{}, row, reduce_op::sum, reduce_strategy::last_block);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "ksync::reduce: data has stride 2; native strategies need contiguous Views");
  }
  EXPECT_EQ(ksync::reduce(Exec{}, row, reduce_op::sum, reduce_strategy::tuned), 0.0f);
}

// A Kokkos View of more than 2^32 int32 (16 GiB): every strategy reaches the elements past 2^32.
TEST(BridgeLargeGpu, IndicesBeyondTwoToThe32AreReachedByEveryStrategy) {
  KSYNC_REQUIRE_BRIDGE();
  if (std::getenv("KSYNC_TEST_MAX_SIZE") != nullptr) GTEST_SKIP() << "ksync-skip: too large under a sanitizer";
  const std::size_t n = (std::size_t{1} << 32) + 3;
  const Exec exec;
  const Kokkos::View<std::int32_t*> data("ksync::test::large", n);  // zero-initialized
  Kokkos::deep_copy(Kokkos::subview(data, 0), 1);
  Kokkos::deep_copy(Kokkos::subview(data, (std::size_t{1} << 32) - 1), -4);
  Kokkos::deep_copy(Kokkos::subview(data, n - 2), 7);
  Kokkos::deep_copy(Kokkos::subview(data, n - 1), 5);
  for (const auto strategy : ksync::all_reduce_strategies) {
    if (ksync::test::refused_here(strategy)) continue;
    SCOPED_TRACE(ksync::to_string(strategy));
    EXPECT_EQ(ksync::reduce(exec, data, reduce_op::sum, strategy), 9);
    EXPECT_EQ(ksync::reduce(exec, data, reduce_op::max, strategy), 7);
    EXPECT_EQ(ksync::reduce(exec, data, reduce_op::min, strategy), -4);
  }
}

}  // namespace
