// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge's one entry, ksync::detail::native (ksync/detail/native_bridge.hpp), on the stand-in operation
// of support/stand_in_twin.hpp: arguments reach the twin through ordinary conversions, and where no twin
// exists native() is the guarded throw that check_native_reachable keeps callers from. An argument list no
// twin takes does not compile: compile_fail/bridge_mismatch.cpp, a CTest test of its own.
#include "support/stand_in_twin.hpp"

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <stdexcept>

namespace {

TEST(NativeBridge, ReachesTheTwinThroughOrdinaryConversions) {
  const Kokkos::DefaultHostExecutionSpace exec;
  const float x = 2.5F;  // float for a double parameter
  const int factor = 3;  // int for a std::int64_t parameter
  EXPECT_EQ((ksync::detail::native<"ksync::test::scale", double>(exec, x, factor)), 7.5);
}

TEST(NativeBridge, WhereNoTwinExistsItIsAGuardedThrow) {
  const Kokkos::DefaultHostExecutionSpace exec;
  // twin_of says the stand-in has no twin for float elements: native() compiles, and throws if entered.
  EXPECT_THROW((void)static_cast<double>(ksync::detail::native<"ksync::test::scale", float>(exec, 2.5, 3)),
               std::logic_error);
}

}  // namespace
