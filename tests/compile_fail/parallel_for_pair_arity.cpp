// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Must not compile: the 2-D ksync::parallel_for (rows and cols) given a functor of one index stops the build
// with its static_assert, which names f(i, j). tests/CMakeLists.txt builds this file as its own target and
// passes when the compiler prints that message.
#include <ksync/parallel_for.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace {
struct TouchIndex {
  KOKKOS_FUNCTION void operator()(std::int32_t /*i*/) const {}
};
}  // namespace

void call_with_a_one_index_functor(const Kokkos::DefaultExecutionSpace& exec) {
  ksync::parallel_for(exec, 10, 20, TouchIndex{});
}
