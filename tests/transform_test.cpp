// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::transform (portable) against a host reference.
#include "support/errors.hpp"
#include "support/functors.hpp"
#include "support/kokkos.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

#include <ksync/transform.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ksync::transform_strategy;
using ksync::test::to_device;
using ksync::test::to_host;
using ksync::test::TwiceAndOne;

template <class T>
std::vector<T> twice_and_one(std::vector<T> data) {
  for (auto& x : data)
    x = TwiceAndOne{}(x);
  return data;
}

KSYNC_TYPED_SUITE(Transform, ksync::test::value_types);

TYPED_TEST(Transform, EveryPortableStrategyMatchesTheReferenceOutOfPlaceAndInPlace) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  for (const auto n : ksync::test::device_reduce_sizes) {
    if (!ksync::test::size_enabled(n) || n > 10'000'019) continue;
    const auto host = ksync::test::exact_reduction_input<T>(n, 7u);
    const auto expected = twice_and_one(host);
    for (const auto strategy : ksync::ids_of_half<transform_strategy>(ksync::strategy_half::portable)) {
      SCOPED_TRACE(::testing::Message() << "n = " << n << ", strategy = " << ksync::to_string(strategy));
      const auto in = to_device(host);
      const Kokkos::View<T*> out("ksync::test::out", n);
      ksync::transform(exec, in, out, TwiceAndOne{}, strategy);
      EXPECT_EQ(to_host(out), expected);
      ksync::transform(exec, in, in, TwiceAndOne{}, strategy);  // in place
      EXPECT_EQ(to_host(in), expected);
    }
  }
}

// On GPU backends `tuned` moves 16-byte packs when both Views are contiguous and aligned, and element by
// element otherwise (a View shifted by one element).
TYPED_TEST(Transform, TunedHandlesMisalignedViews) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  for (const std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{4099}, std::size_t{300'007}}) {
    SCOPED_TRACE(::testing::Message() << "n = " << n);
    const auto host = ksync::test::exact_reduction_input<T>(n + 1, 11u);
    const auto in = to_device(host);
    const Kokkos::View<T*> out("ksync::test::out", n + 1);
    const auto shifted_in = Kokkos::subview(in, Kokkos::make_pair(std::size_t{1}, n + 1));
    const auto shifted_out = Kokkos::subview(out, Kokkos::make_pair(std::size_t{0}, n));
    ksync::transform(exec, shifted_in, shifted_out, TwiceAndOne{}, transform_strategy::tuned);
    auto expected = twice_and_one(std::vector<T>(host.begin() + 1, host.end()));
    expected.push_back(T{0});
    EXPECT_EQ(to_host(out), expected);
  }
}

TEST(TransformArguments, ExtentsMustMatch) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<float*> in("ksync::test::in", 8);
  const Kokkos::View<float*> out("ksync::test::out", 9);
  EXPECT_TRUE(ksync::test::refuses([&] { ksync::transform(exec, in, out, TwiceAndOne{}); },
                                   "ksync::transform: out.extent(0) = 9 but in.extent(0) = 8"));
}

TEST(TransformArguments, PartlyOverlappingViewsAreRejected) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<int*> data("ksync::test::data", 100);
  const auto front = Kokkos::subview(data, Kokkos::make_pair(0, 60));
  const auto back = Kokkos::subview(data, Kokkos::make_pair(40, 100));
  EXPECT_THROW(ksync::transform(exec, front, back, TwiceAndOne{}), std::invalid_argument);
}

TEST(TransformArguments, AValueThatIsNoStrategyIsRefused) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<float*> in("ksync::test::in", 8);
  const Kokkos::View<float*> out("ksync::test::out", 8);
  EXPECT_TRUE(
      ksync::test::refuses([&] { ksync::transform(exec, in, out, TwiceAndOne{}, static_cast<transform_strategy>(99)); },
                           "strategy = 99 is not a transform_strategy"));
}

TEST(TransformArguments, TheNativeStrategyIsRefusedWhereTheBridgeDoesNotExist) {
  KSYNC_SKIP_WHERE_THE_BRIDGE_EXISTS();
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<float*> in("ksync::test::in", 8);
  const Kokkos::View<float*> out("ksync::test::out", 8);
  EXPECT_TRUE(ksync::test::refuses([&] { ksync::transform(exec, in, out, TwiceAndOne{}, transform_strategy::native); },
                                   "ksync::transform: strategy = native runs ksync::cuda's kernels"));
}

}  // namespace
