// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The bridge on Kokkos Views of every value type: ksync::reduce / dot / transform_reduce / transform with each
// strategy, native ones on Kokkos::Cuda running ksync::cuda's kernels on the instance's stream, give the
// reference result. Compiled once per value type (support/types.hpp, per_type_values); the untyped bridge
// cases are in bridge_test.cpp.
#include "support/bridge.hpp"
#include "support/functors.hpp"
#include "support/kokkos.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

#include <ksync/ksync.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace {

using ksync::test::Bend;
using ksync::test::TwiceAndOne;
using Exec = Kokkos::DefaultExecutionSpace;
using ksync::test::to_device;
using ksync::test::to_host;

KSYNC_TYPED_SUITE(BridgeGpu, ksync::test::per_type_values, ksync::test::value_type_index);

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
      if (ksync::test::refused_here(strategy)) continue;  // BridgeArgumentsGpu.ClusterIsRefused... checks the refusal
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

}  // namespace
