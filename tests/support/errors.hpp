// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What an argument check said: the tests compare the message, which must name the argument and its value.
#pragma once

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace ksync::test {

// The message of the std::invalid_argument `call()` throws, or "no exception".
template <class Call>
std::string invalid_argument_message(Call&& call) {
  try {
    call();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "no exception";
}

// Whether call() throws std::invalid_argument whose message contains `expected`; a failure shows the message
// it threw instead. EXPECT_TRUE(refuses([&] { ... }, "n = 3")).
template <class Call>
::testing::AssertionResult refuses(Call&& call, std::string_view expected) {
  const std::string message = invalid_argument_message(call);
  if (message.find(expected) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected std::invalid_argument containing \"" << expected
                                       << "\"; got: " << message;
}

}  // namespace ksync::test
