// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The bridge: ksync::reduce / dot / transform_reduce / transform with a native strategy on Kokkos::Cuda run
// ksync::cuda's kernels on the instance's stream and give the reference result; portable strategies on the
// same Views agree. Needs the CUDA backend and a GPU; skipped elsewhere.
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

using ksync::test::Bend;
using ksync::test::TwiceAndOne;
using Exec = Kokkos::DefaultExecutionSpace;
using ksync::reduce_op;
using ksync::reduce_strategy;
using ksync::test::to_device;
using ksync::test::to_host;

#define KSYNC_REQUIRE_BRIDGE()                                                                 \
  do {                                                                                         \
    KSYNC_REQUIRE_GPU();                                                                       \
    if (!ksync::detail::has_native_bridge<Exec>)                                               \
      GTEST_SKIP() << "ksync-skip: the bridge needs Kokkos' CUDA backend and the native half"; \
  } while (false)

template <class T>
class BridgeGpu : public ::testing::Test {};
TYPED_TEST_SUITE(BridgeGpu, ksync::test::value_types);

TYPED_TEST(BridgeGpu, EveryStrategyGivesTheReferenceOnKokkosViews) {
  KSYNC_REQUIRE_BRIDGE();
  using T = TypeParam;
  const auto instances = ksync::compat::partition_space(Exec{}, 1);
  const Exec& exec = instances[0];
  const Kokkos::View<T> result("ksync::test::result");
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{257}, std::size_t{65537},
                              std::size_t{1'000'003}, std::size_t{100'000'007}}) {
    if (!ksync::test::size_enabled(n)) continue;
    const auto x_host = ksync::test::exact_reduction_input<T>(n, 13u);
    const auto y_host = ksync::test::zero_one_input<T>(n, 14u);
    const auto x = to_device(x_host);
    const auto y = to_device(y_host);
    for (const auto strategy : ksync::all_reduce_strategies) {
      if (ksync::test::refused_here(strategy)) continue;  // BridgeGpu.ClusterIsRefused... checks the refusal
      SCOPED_TRACE(::testing::Message() << "n = " << n << ", strategy = " << ksync::to_string(strategy));
      for (const auto op : ksync::test::all_reduce_ops) {
        const T expected = ksync::test::reduction_reference(x_host, op);
        EXPECT_EQ(ksync::reduce(exec, x, op, strategy), expected);
        ksync::reduce(exec, x, op, strategy, result);
        T async_value{};
        Kokkos::deep_copy(exec, async_value, result);
        exec.fence("ksync::test::bridge");
        EXPECT_EQ(async_value, expected);
        EXPECT_EQ(ksync::transform_reduce(exec, x, op, Bend{}, strategy),
                  ksync::test::reduction_reference(x_host, op, Bend{}));
      }
      EXPECT_EQ(ksync::dot(exec, x, y, strategy), ksync::test::dot_reference(x_host, y_host));
    }
    const Kokkos::View<T*> out("ksync::test::out", n);
    ksync::transform(exec, x, out, TwiceAndOne{}, ksync::transform_strategy::native);
    std::vector<T> expected(x_host);
    for (auto& value : expected)
      value = TwiceAndOne{}(value);
    EXPECT_EQ(to_host(out), expected);
  }
}

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
