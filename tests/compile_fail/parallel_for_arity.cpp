// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Must not compile: ksync::parallel_for given a functor of two arguments (a reduction's f(i, acc)) stops the
// build with its static_assert, which names parallel_reduce. tests/CMakeLists.txt builds this file as its own
// target and passes when the compiler prints that message.
#include <ksync/parallel_for.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace {
struct SumOfIndices {
  KOKKOS_FUNCTION void operator()(std::int32_t i, std::int64_t& acc) const { acc += i; }
};
}  // namespace

void call_with_a_reduction_functor(const Kokkos::DefaultExecutionSpace& exec) {
  ksync::parallel_for(exec, 10, SumOfIndices{});
}
