// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The value types every typed test suite runs over: the types ksync's operations are compiled for.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

namespace ksync::test {

using value_types = ::testing::Types<std::int32_t, std::int64_t, float, double>;
using floating_types = ::testing::Types<float, double>;

}  // namespace ksync::test
