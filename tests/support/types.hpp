// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The value types every typed test suite runs over: the types ksync's operations are compiled for.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>

// A typed suite whose fixture holds nothing: the fixture and TYPED_TEST_SUITE(suite, types[, names]) in one.
#define KSYNC_TYPED_SUITE(suite, ...)      \
  template <class T>                       \
  class suite : public ::testing::Test {}; \
  TYPED_TEST_SUITE(suite, __VA_ARGS__)

namespace ksync::test {

using value_types = ::testing::Types<std::int32_t, std::int64_t, float, double>;
using floating_types = ::testing::Types<float, double>;

// The heaviest typed suites to compile (every strategy, operator and type instantiated for the device) are
// compiled once per value type, in parallel (tests/CMakeLists.txt: ksync_per_value_type): such a file sees
// only its own type here, KSYNC_TEST_VALUE_TYPE. value_type_index names each type's tests by its place in
// value_types (Reduce/2 is float), as an unsplit suite would, so that the test names stay the same and the
// translation units' suites never collide.
#ifdef KSYNC_TEST_VALUE_TYPE
using per_type_values = ::testing::Types<KSYNC_TEST_VALUE_TYPE>;
#else
using per_type_values = value_types;
#endif

struct value_type_index {
  template <class T>
  static std::string GetName(int /*index*/) {  // NOLINT(readability-identifier-naming): GoogleTest's name
    if constexpr (std::is_same_v<T, std::int32_t>) {
      return "0";
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      return "1";
    } else if constexpr (std::is_same_v<T, float>) {
      return "2";
    } else {
      static_assert(std::is_same_v<T, double>, "value_type_index names the value types of value_types only");
      return "3";
    }
  }
};

}  // namespace ksync::test
