// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Must not compile: the portable_reduce example of docs/architecture.md without its row in the portable
// table (CMakeLists.txt here applies the example leaving that hunk out). Any portable reduction
// instantiates the table, whose check stops the build with strategy_table's message.
#include <ksync/reduce.hpp>

#include <Kokkos_Core.hpp>

float sum_of(const Kokkos::View<const float*>& data) {
  return ksync::reduce(Kokkos::DefaultExecutionSpace{}, data, ksync::reduce_op::sum);
}
