// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// spmv_strategy::row_per_thread (portable) — a RangePolicy over the rows, each row folded by one thread with
// csr_row_apply (ksync/csr.hpp), the matrix's own row operator: no collective, no barrier.
#pragma once

#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ksync::detail {

template <class Matrix, class XView, class YView>
struct SpmvRowPerThread {
  Matrix a;
  XView x;
  YView y;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { y(i) = a(x, i); }
};

namespace spmv_strategies {

struct row_per_thread : implements<spmv_strategy::row_per_thread> {
  template <class ExecutionSpace, class Matrix, class XView, class YView>
  static void run(const ExecutionSpace& exec, const Matrix& a, const XView& x, const YView& y) {
    Kokkos::parallel_for("ksync::spmv::row_per_thread",
                         Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, a.rows()),
                         SpmvRowPerThread<Matrix, XView, YView>{a, x, y});
  }
};

}  // namespace spmv_strategies
}  // namespace ksync::detail
