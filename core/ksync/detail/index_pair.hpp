// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The 2-D index forms (ksync::parallel_for(exec, rows, cols, f), ksync::cuda::parallel_for(stream, rows,
// cols, f), and parallel_reduce's) as one flat index k in [0, rows * cols) handed to the 1-D machinery: work
// item k calls f(i, j) with the index that `order` names as the fast one (iterate::left: i, the first, as
// LayoutLeft strides it; iterate::right: j) being k % extent, the other k / extent. Neighbouring work items
// so touch neighbouring elements of an array laid out in that order, and every strategy of the 1-D forms
// (their batching, their grids, the native kernels) applies unchanged. The division is invariant_divisor's
// multiply and shifts. Plain C++, shared by both halves.
#pragma once

#include <ksync/detail/arguments.hpp>
#include <ksync/detail/host_device.hpp>
#include <ksync/detail/invariant_divisor.hpp>
#include <ksync/index_strategy.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace ksync::detail {

// (i, j) of flat index k: the fast index k % fast_extent, the slow one (its line) k / fast_extent.
template <iterate Order, class Index>
struct index_pair_map {
  invariant_divisor<Index> fast_extent;

  KSYNC_HOST_DEVICE void locate(Index k, Index& slow, Index& fast) const {
    slow = fast_extent.quotient(k);
    fast = k - slow * fast_extent.divisor();
  }
  static KSYNC_HOST_DEVICE void pair(Index slow, Index fast, Index& i, Index& j) {
    i = Order == iterate::left ? fast : slow;
    j = Order == iterate::left ? slow : fast;
  }
  KSYNC_HOST_DEVICE void split(Index k, Index& i, Index& j) const {
    Index slow = 0;
    Index fast = 0;
    locate(k, slow, fast);
    pair(slow, fast, i, j);
  }
};

// f(i, j) as an index functor g(k).
template <iterate Order, class Index, class F>
struct index_pair_for {
  F f;
  index_pair_map<Order, Index> map;
  KSYNC_HOST_DEVICE void operator()(Index k) const {
    Index i = 0;
    Index j = 0;
    map.split(k, i, j);
    f(i, j);
  }
};

// f(i, j, acc) as a reduction functor g(k, acc); on_line(slow, fast, acc) the same term by its line and its
// place on the line, for folds that walk lines (reduce_strategy::tuned on host backends).
template <iterate Order, class Index, class F>
struct index_pair_reduce {
  F f;
  index_pair_map<Order, Index> map;
  template <class Acc>
  KSYNC_HOST_DEVICE void operator()(Index k, Acc& acc) const {
    Index i = 0;
    Index j = 0;
    map.split(k, i, j);
    f(i, j, acc);
  }
  template <class Acc>
  KSYNC_HOST_DEVICE void on_line(Index slow, Index fast, Acc& acc) const {
    Index i = 0;
    Index j = 0;
    index_pair_map<Order, Index>::pair(slow, fast, i, j);
    f(i, j, acc);
  }
};

// Whether a reduction functor is a 2-D one's flat form: tuned's host walk then takes its terms line by line
// (IndexTerm::for_each_line, src/ksync/detail/parallel/index_terms.hpp).
template <class F>
inline constexpr bool is_index_pair_reduce_v = false;
template <iterate Order, class Index, class F>
inline constexpr bool is_index_pair_reduce_v<index_pair_reduce<Order, Index, F>> = true;

// rows * cols, the flat count, after checking both extents and that it fits Index.
template <class Index>
Index checked_pair_count(const char* where, Index rows, Index cols) {
  check_argument(rows >= 0, where, "rows = ", rows, " is negative");
  check_argument(cols >= 0, where, "cols = ", cols, " is negative");
  constexpr Index largest = std::numeric_limits<Index>::max();
  if constexpr (std::is_same_v<Index, std::int32_t>) {
    check_argument(cols == 0 || rows <= largest / cols, where, "rows x cols = ", rows, " x ", cols,
                   " does not fit an std::int32_t index: pass std::int64_t extents");
  } else {
    check_argument(cols == 0 || rows <= largest / cols, where, "rows x cols = ", rows, " x ", cols,
                   " does not fit an std::int64_t index");
  }
  return rows * cols;
}

// The map of flat indices to pairs in Order, its divisor made here on the host (any divisor serves an empty
// range).
template <iterate Order, class Index>
index_pair_map<Order, Index> make_index_pair_map(Index rows, Index cols) {
  const Index fast = Order == iterate::left ? rows : cols;
  return {rows == 0 || cols == 0 ? invariant_divisor<Index>{} : invariant_divisor<Index>(fast)};
}

// The index functor over [0, rows * cols) that calls f(i, j) in Order; and the reduction functor for f(i, j, acc).
template <iterate Order, class Index, class F>
index_pair_for<Order, Index, F> make_index_pair_for(const F& f, Index rows, Index cols) {
  return {f, make_index_pair_map<Order>(rows, cols)};
}
template <iterate Order, class Index, class F>
index_pair_reduce<Order, Index, F> make_index_pair_reduce(const F& f, Index rows, Index cols) {
  return {f, make_index_pair_map<Order>(rows, cols)};
}

inline void check_iterate(const char* where, iterate order) {
  check_argument(order == iterate::left || order == iterate::right, where, "order = ", static_cast<int>(order),
                 " is not a ksync::iterate");
}

// Calls run.template operator()<Order>() with `order` (checked: check_iterate) as a compile-time value: each
// order is its own kernel.
template <class Run>
void with_iterate(iterate order, Run&& run) {
  switch (order) {
    case iterate::left:
      run.template operator()<iterate::left>();
      return;
    case iterate::right:
      run.template operator()<iterate::right>();
      return;
  }
  throw std::logic_error("ksync::detail::with_iterate: an order check_iterate refuses reached a kernel");
}

}  // namespace ksync::detail
