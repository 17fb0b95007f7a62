// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::reduce (portable) against a host reference.
#include "support/kokkos.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

#include <ksync/reduce.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using ksync::test::to_device;

template <class T>
class Reduce : public ::testing::Test {};
TYPED_TEST_SUITE(Reduce, ksync::test::value_types);

TYPED_TEST(Reduce, BlockingSumEqualsHostReferenceAtBoundarySizes) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  for (const auto n : ksync::test::reduce_sizes) {
    SCOPED_TRACE(::testing::Message() << "n = " << n);
    const auto host = ksync::test::small_integers<T>(n, 17u + static_cast<std::uint32_t>(n));
    const auto data = to_device(host);
    EXPECT_EQ(ksync::reduce(exec, data), static_cast<T>(ksync::test::exact_sum(host)));
  }
}

TYPED_TEST(Reduce, AsyncSumOverwritesAPoisonedDeviceResult) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  for (const auto n : ksync::test::reduce_sizes) {
    SCOPED_TRACE(::testing::Message() << "n = " << n);
    const auto host = ksync::test::small_integers<T>(n, 29u + static_cast<std::uint32_t>(n));
    const auto data = to_device(host);
    const Kokkos::View<T> result("ksync::test::result");
    Kokkos::deep_copy(result, static_cast<T>(-12345));  // poison: a result of all-skipped work shows
    ksync::reduce(exec, data, result);
    T sum{};
    Kokkos::deep_copy(sum, result);
    EXPECT_EQ(sum, static_cast<T>(ksync::test::exact_sum(host)));
  }
}

TYPED_TEST(Reduce, ConstDataAndSubviewsAreAccepted) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  const auto host = ksync::test::small_integers<T>(1000, 5u);
  const auto data = to_device(host);
  const Kokkos::View<const T*> read_only = data;
  const auto tail = Kokkos::subview(read_only, Kokkos::make_pair(10, 1000));
  const std::vector<T> host_tail(host.begin() + 10, host.end());
  EXPECT_EQ(ksync::reduce(exec, tail), static_cast<T>(ksync::test::exact_sum(host_tail)));
}

// 3 * 2^24 ones: a float partial that adds them one by one stops at 2^24, so a backend that lets one
// thread add more than 2^24 of them in float (OpenMP with few threads) would return far too little.
TEST(ReduceAccuracy, ManyFloatsOfOneSignSumExactly) {
  const Kokkos::DefaultExecutionSpace exec;
  constexpr int n = 3 * (1 << 24);
  const Kokkos::View<float*> ones("ksync::test::ones", n);
  Kokkos::deep_copy(exec, ones, 1.0f);
  const Kokkos::View<float> result("ksync::test::result");
  ksync::reduce(exec, ones, result);
  float async_sum = 0;
  Kokkos::deep_copy(async_sum, result);
  EXPECT_EQ(async_sum, static_cast<float>(n));
  EXPECT_EQ(ksync::reduce(exec, ones), static_cast<float>(n));
}

template <class T>
class ReduceRounding : public ::testing::Test {};
TYPED_TEST_SUITE(ReduceRounding, ksync::test::floating_types);

TYPED_TEST(ReduceRounding, ErrorStaysWithinTheBoundForAnySummationOrder) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  for (const auto n : ksync::test::reduce_sizes) {
    SCOPED_TRACE(::testing::Message() << "n = " << n);
    const auto host = ksync::test::signed_fractions<T>(n, 41u + static_cast<std::uint32_t>(n));
    const auto data = to_device(host);
    const long double error = static_cast<long double>(ksync::reduce(exec, data)) - ksync::test::exact_sum(host);
    EXPECT_LE(std::fabs(error), ksync::test::sum_error_bound(host));
  }
}

}  // namespace
