// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Must not compile: a portable call whose arguments its native twin does not take (here a string where the
// stand-in twin takes a number) stops the build with native()'s static_assert, never a run-time error.
// tests/CMakeLists.txt builds this file as its own target and passes when the compiler prints that message.
#include "../support/stand_in_twin.hpp"

#include <Kokkos_Core.hpp>

double call_with_a_mismatch(const Kokkos::DefaultHostExecutionSpace& exec) {
  return ksync::detail::native<"ksync::test::scale", double>(exec, "two and a half", 3);
}
