// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a distributed solve must share with the one-device solve of the same recurrence, for both halves' MPI
// tests: both converged, within one iteration of each other, under the tolerance, a history entry per iteration.
#pragma once

#include <ksync/cg_types.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace ksync::test {

inline void expect_the_same_solve(const cg_result& result, const cg_result& reference, const cg_options& options,
                                  const std::string& where) {
  EXPECT_TRUE(reference.converged) << where;
  EXPECT_TRUE(result.converged) << where;
  EXPECT_LE(std::abs(result.iterations - reference.iterations), 1) << where;
  EXPECT_LE(result.relative_residual, options.tolerance) << where;
  EXPECT_EQ(result.residual_history.size(), static_cast<std::size_t>(result.iterations) + 1) << where;
}

}  // namespace ksync::test
