// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What an argument check said: the tests compare the message, which must name the argument and its value.
#pragma once

#include <stdexcept>
#include <string>

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

}  // namespace ksync::test
