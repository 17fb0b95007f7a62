// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::reverse_in_block and ksync::reverse (portable) against a host reference.
#include "support/errors.hpp"
#include "support/kokkos.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

#include <ksync/reverse.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ksync::test {
namespace {

KSYNC_TYPED_SUITE(Reverse, value_types);

// Each test runs every implementation this backend reaches: portable, and native through the bridge on
// Kokkos::Cuda.
TYPED_TEST(Reverse, InBlockReversesEveryCountUpTo128) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  for (const auto how : reachable_implementations<Kokkos::DefaultExecutionSpace>()) {
    for (std::size_t n = 0; n <= 128; ++n) {
      SCOPED_TRACE(::testing::Message() << "how = " << ksync::to_string(how) << ", n = " << n);
      const auto host = distinct_values<T>(n, 3);
      const Kokkos::View<T*> out("out", n);
      ksync::reverse_in_block(exec, to_device(host), out, how);
      EXPECT_EQ(to_host(out), reversed(host));
    }
  }
}

TYPED_TEST(Reverse, OutOfPlaceAndInPlaceMatchTheReferenceForEveryTileAndSize) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  for (const auto how : reachable_implementations<Kokkos::DefaultExecutionSpace>()) {
    for (const int tile : block_sizes) {
      for (const auto n : boundary_sizes) {
        if (!size_enabled(n) || (n > 100'000 && tile != 256)) continue;
        SCOPED_TRACE(::testing::Message() << "how = " << ksync::to_string(how) << ", tile = " << tile << ", n = " << n);
        const auto host = distinct_values<T>(n, 11);
        const auto expected = reversed(host);
        const auto data = to_device(host);
        const Kokkos::View<T*> out("out", n);
        ksync::reverse(exec, data, out, tile, how);
        EXPECT_EQ(to_host(out), expected);
        ksync::reverse(exec, data, tile, how);
        EXPECT_EQ(to_host(data), expected);
      }
    }
  }
}

TEST(ReverseArguments, TheNativeImplementationIsRefusedWhereTheBridgeDoesNotExist) {
  KSYNC_SKIP_WHERE_THE_BRIDGE_EXISTS();
  using Exec = Kokkos::DefaultExecutionSpace;
  const Kokkos::View<float*> in("in", 8);
  const Kokkos::View<float*> out("out", 8);
  const auto native = ksync::implementation::native;
  const std::string refused = ": how = native runs ksync::cuda's kernels";
  EXPECT_TRUE(refuses([&] { ksync::reverse_in_block(Exec{}, in, out, native); }, "ksync::reverse_in_block" + refused));
  EXPECT_TRUE(refuses([&] { ksync::reverse(Exec{}, in, out, 256, native); }, "ksync::reverse" + refused));
  EXPECT_TRUE(refuses([&] { ksync::reverse(Exec{}, in, 256, native); }, "ksync::reverse" + refused));
}

TEST(ReverseArguments, MoreThan128ValuesInOneBlockAreRejected) {
  const Kokkos::View<int*> in("in", 129);
  const Kokkos::View<int*> out("out", 129);
  try {
    ksync::reverse_in_block(Kokkos::DefaultExecutionSpace{}, in, out);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "ksync::reverse_in_block: in.extent(0) = 129 exceeds the block of 128");
  }
}

TEST(ReverseArguments, MismatchedExtentsAndBadTilesAreRejected) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<int*> in("in", 10);
  const Kokkos::View<int*> shorter("out", 9);
  EXPECT_THROW(ksync::reverse(exec, in, shorter), std::invalid_argument);
  EXPECT_THROW(ksync::reverse(exec, in, in), std::invalid_argument);
  const Kokkos::View<int*> wide("wide", 20);
  EXPECT_THROW(ksync::reverse(exec, Kokkos::subview(wide, Kokkos::make_pair(0, 10)),
                              Kokkos::subview(wide, Kokkos::make_pair(5, 15))),
               std::invalid_argument);
  EXPECT_NO_THROW(ksync::reverse(exec, Kokkos::subview(wide, Kokkos::make_pair(0, 10)),
                                 Kokkos::subview(wide, Kokkos::make_pair(10, 20))));
  EXPECT_THROW(ksync::reverse(exec, in, 0), std::invalid_argument);
  const Kokkos::View<int*> out("out", 10);
  EXPECT_THROW(ksync::reverse(exec, in, out, 5000), std::invalid_argument);
}

}  // namespace
}  // namespace ksync::test
