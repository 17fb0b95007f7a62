// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::reduce, dot and transform_reduce (portable) against a host reference, for every portable strategy
// and operator; compiled once per value type (support/types.hpp, per_type_values). The untyped cases are in
// reduce_test.cpp.
#include "support/functors.hpp"
#include "support/kokkos.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

#include <ksync/reduce.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ksync::test {
namespace {

const std::vector<reduce_strategy> portable_strategies =
    ksync::ids_of_half<reduce_strategy>(ksync::strategy_half::portable);

KSYNC_TYPED_SUITE(Reduce, per_type_values, value_type_index);

TYPED_TEST(Reduce, EveryStrategyAndOperatorMatchesTheReferenceAtBoundarySizes) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<T> result("result");
  for (const auto n : device_reduce_sizes) {
    if (!size_enabled(n)) continue;
    const auto host = exact_reduction_input<T>(n, 17u + static_cast<std::uint32_t>(n));
    const auto data = to_device(host);
    for (const auto op : all_reduce_ops) {
      const T expected = reduction_reference(host, op);
      for (const auto strategy : portable_strategies) {
        SCOPED_TRACE(::testing::Message() << "n = " << n << ", op = " << ksync::to_string(op)
                                          << ", strategy = " << ksync::to_string(strategy));
        EXPECT_EQ(ksync::reduce(exec, data, op, strategy), expected);
        Kokkos::deep_copy(result, static_cast<T>(-12345));  // poison: a result of all-skipped work shows
        ksync::reduce(exec, data, op, strategy, result);
        T async_value{};
        Kokkos::deep_copy(async_value, result);
        EXPECT_EQ(async_value, expected);
      }
    }
  }
}

TYPED_TEST(Reduce, DotAndTransformReduceMatchTheReferenceForEveryStrategy) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<T> result("result");
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{4097},
                              std::size_t{1'000'003}, std::size_t{10'000'019}}) {
    const auto x_host = exact_reduction_input<T>(n, 3u);
    const auto y_host = zero_one_input<T>(n, 5u);
    const auto x = to_device(x_host);
    const auto y = to_device(y_host);
    for (const auto strategy : portable_strategies) {
      SCOPED_TRACE(::testing::Message() << "n = " << n << ", strategy = " << ksync::to_string(strategy));
      EXPECT_EQ(ksync::dot(exec, x, y, strategy), dot_reference(x_host, y_host));
      ksync::dot(exec, x, y, strategy, result);
      T async_dot{};
      Kokkos::deep_copy(async_dot, result);
      EXPECT_EQ(async_dot, dot_reference(x_host, y_host));
      for (const auto op : all_reduce_ops) {
        EXPECT_EQ(ksync::transform_reduce(exec, x, op, Bend{}, strategy), reduction_reference(x_host, op, Bend{}));
      }
    }
  }
}

TYPED_TEST(Reduce, ConstDataAndSubviewsAreAccepted) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  const auto host = small_integers<T>(1000, 5u);
  const auto data = to_device(host);
  const Kokkos::View<const T*> read_only = data;
  const auto tail = Kokkos::subview(read_only, Kokkos::make_pair(10, 1000));
  const std::vector<T> host_tail(host.begin() + 10, host.end());
  EXPECT_EQ(ksync::reduce(exec, tail), static_cast<T>(exact_sum(host_tail)));
  const Kokkos::View<T*, Kokkos::LayoutStride> every_other = Kokkos::subview(data, Kokkos::pair<int, int>(0, 1000));
  EXPECT_EQ(ksync::reduce(exec, every_other, reduce_op::max, reduce_strategy::team),
            reduction_reference(host, reduce_op::max));
}

// On GPU backends `tuned` reads 16-byte packs when every View is contiguous and aligned, element by element
// otherwise: the same results either way, tails included.
TYPED_TEST(Reduce, TunedReadsAlignedMisalignedAndStridedDataAlike) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  for (const std::size_t n :
       {std::size_t{1}, std::size_t{3}, std::size_t{17}, std::size_t{4099}, std::size_t{300'007}}) {
    const auto host = exact_reduction_input<T>(2 * n + 2, 23u);
    const auto data = to_device(host);
    const auto aligned = Kokkos::subview(data, Kokkos::make_pair(std::size_t{0}, n));
    const auto misaligned = Kokkos::subview(data, Kokkos::make_pair(std::size_t{1}, n + 1));
    const Kokkos::View<const T*, Kokkos::LayoutStride> strided(data.data(), Kokkos::LayoutStride(n, 2));
    std::vector<T> host_aligned(host.begin(), host.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<T> host_misaligned(host.begin() + 1, host.begin() + static_cast<std::ptrdiff_t>(n) + 1);
    std::vector<T> host_strided(n);
    for (std::size_t i = 0; i < n; ++i)
      host_strided[i] = host[2 * i];
    for (const auto op : all_reduce_ops) {
      SCOPED_TRACE(::testing::Message() << "n = " << n << ", op = " << ksync::to_string(op));
      EXPECT_EQ(ksync::reduce(exec, aligned, op, reduce_strategy::tuned), reduction_reference(host_aligned, op));
      EXPECT_EQ(ksync::reduce(exec, misaligned, op, reduce_strategy::tuned), reduction_reference(host_misaligned, op));
      EXPECT_EQ(ksync::reduce(exec, strided, op, reduce_strategy::tuned), reduction_reference(host_strided, op));
    }
    // One packable and one misaligned operand: the dot reads both element by element.
    EXPECT_EQ(ksync::dot(exec, aligned, misaligned, reduce_strategy::tuned),
              dot_reference(host_aligned, host_misaligned));
  }
}

}  // namespace
}  // namespace ksync::test
