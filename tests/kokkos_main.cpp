// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GoogleTest entry point for the portable suite: Kokkos lives for the whole run.
#include <Kokkos_Core.hpp>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  const Kokkos::ScopeGuard kokkos(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
