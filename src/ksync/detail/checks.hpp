// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Argument checks of the portable half: compile-time ones as static_asserts, run-time ones as
// std::invalid_argument naming the function, the argument and its value.
#pragma once

#include <ksync/compat.hpp>

#include <sstream>
#include <stdexcept>

namespace ksync::detail {

template <class... Parts>
void check_argument(bool ok, const char* where, const Parts&... what) {
  if (ok) return;
  std::ostringstream message;
  message << where << ": ";
  (message << ... << what);
  throw std::invalid_argument(message.str());
}

// `exec` can run a kernel over View `V` (a rank-`Rank` View of arithmetic or trivially copyable values).
template <class ExecutionSpace, class V, std::size_t Rank>
constexpr bool is_usable_view_v = Kokkos::is_view_v<V> && compat::view_rank<V> == Rank &&
                                  Kokkos::SpaceAccessibility<ExecutionSpace, typename V::memory_space>::accessible;

}  // namespace ksync::detail
