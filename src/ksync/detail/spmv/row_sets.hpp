// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The distributed product's kernels over a set of local rows (ksync/mpi/spmv.hpp: the interior rows, then the
// boundary rows): each row through the matrix's own row operator, as ksync::spmv's row_per_thread, so every
// rank's rows equal the one-rank product bit for bit. The rows are a run [first, first + count) or a list.
#pragma once

#include <ksync/detail/lanes.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ksync::detail {

// The k-th row of a run.
struct row_run {
  std::int64_t first;
  KOKKOS_FUNCTION std::int64_t operator()(std::int64_t k) const { return first + k; }
};

// y(rows(k)) = row rows(k) of A x.
template <class Matrix, class RowsView, class XView, class YView>
struct listed_rows_product {
  Matrix a;
  RowsView rows;
  XView x;
  YView y;
  KOKKOS_FUNCTION void operator()(std::int64_t k) const {
    const std::int64_t i = rows(k);
    y(i) = a(x, i);
  }
};

// Rows row_of(0), ..., row_of(count - 1) of y = A x, summing x(i) * y(i) over them as each row is made: a
// solver's p . Ap without reading p and Ap again (two passes over memory of the eleven a classic iteration
// makes besides the product's). A reduction whose terms store: its lanes (rows_as_lanes) sum in locals
// (fold_lane). Row i's own entry x(i) is its local column i (a rank's own columns come first) and is loaded
// before y(i) is stored.
template <class Matrix, class RowOf, class XView, class YView>
struct rows_product_and_dot {
  using value_type = typename YView::non_const_value_type;
  Matrix a;
  RowOf row_of;
  XView x;
  YView y;
  lane_split lanes;
  KOKKOS_FUNCTION void operator()(std::int64_t lane, value_type& sum) const {
    fold_lane(lanes, lane, sum, [&](std::int64_t k) {
      const std::int64_t i = row_of(k);
      const value_type x_i = x(i);
      const auto y_i = static_cast<value_type>(a(x, i));
      y(i) = y_i;
      return x_i * y_i;
    });
  }
};

}  // namespace ksync::detail
