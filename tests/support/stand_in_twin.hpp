// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A stand-in operation with a native twin on the host execution space, in the shape of a bridge file
// (ksync/detail/bridge/), so that what native() does with a twin is checked on every backend, the CPU ones
// included: "ksync::test::scale" has a twin for double elements only, which returns x * factor.
#pragma once

#include <ksync/detail/native_bridge.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace ksync::detail {

template <class T>
struct twin_of<"ksync::test::scale", Kokkos::DefaultHostExecutionSpace, T> {
  static constexpr bool exists = std::is_same_v<T, double>;
  static constexpr const char* elements = "double";
};

inline double twin(operation<"ksync::test::scale"> /*tag*/, const Kokkos::DefaultHostExecutionSpace& /*exec*/, double x,
                   std::int64_t factor) {
  return x * static_cast<double>(factor);
}

}  // namespace ksync::detail
