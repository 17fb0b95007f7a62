// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::parallel_reduce with a reduce_strategy: the index functor's terms folded by ksync::reduce's
// strategies — the portable rows (kokkos, team, tuned) through fold_portable, the native rows (two_pass,
// last_block, grid_sync, cluster, atomics) through the bridge to ksync::cuda::parallel_reduce.
#pragma once

#include <ksync/detail/bridge/parallel_reduce.hpp>
#include <ksync/detail/index_pair.hpp>
#include <ksync/detail/native_bridge.hpp>
#include <ksync/detail/packs.hpp>
#include <ksync/detail/parallel/arguments.hpp>
#include <ksync/reduce.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace ksync::detail {

// f(i, acc) as one term of a reduction: index i's value, folded from the operator's identity. The packed
// form that ksync::reduce's strategies use on contiguous data is never taken (packable() is false: f reads
// what it reads), so pack() is only the terms of one pack, one at a time.
template <class Index, class F, class T>
struct IndexTerm {
  using value_type = T;
  F f;
  T identity;
  KOKKOS_FUNCTION T operator()(std::int64_t i) const {
    T acc = identity;
    f(static_cast<Index>(i), acc);
    return acc;
  }
  KOKKOS_FUNCTION pack16<T> pack(std::int64_t p) const {
    pack16<T> values;
    for (int k = 0; k < pack16<T>::width; ++k)
      values.value[k] = (*this)(p * pack16<T>::width + k);
    return values;
  }
  bool packable() const { return false; }

  // A 2-D functor's lines: their length (its fast extent), where term k lies, and the term at a place.
  KOKKOS_FUNCTION std::int64_t line_length() const
    requires is_index_pair_reduce_v<F>
  {
    return f.map.fast_extent.divisor();
  }
  KOKKOS_FUNCTION void locate(std::int64_t k, std::int64_t& slow, std::int64_t& fast) const
    requires is_index_pair_reduce_v<F>
  {
    Index line = 0;
    Index place = 0;
    f.map.locate(static_cast<Index>(k), line, place);
    slow = line;
    fast = place;
  }
  KOKKOS_FUNCTION T at_pair(std::int64_t slow, std::int64_t fast) const
    requires is_index_pair_reduce_v<F>
  {
    T acc = identity;
    f.on_line(static_cast<Index>(slow), static_cast<Index>(fast), acc);
    return acc;
  }

  // A 2-D functor's terms k in [begin, end) line by line: visit(at, count) for each piece of a line, at(x)
  // the term x places further along it. tuned's host fold runs each piece as a plain loop.
  template <class Visit>
    requires is_index_pair_reduce_v<F>
  KOKKOS_FUNCTION void for_each_line(std::int64_t begin, std::int64_t end, const Visit& visit) const {
    if (begin >= end) return;
    Index slow = 0;
    Index fast = 0;
    f.map.locate(static_cast<Index>(begin), slow, fast);
    const std::int64_t extent = f.map.fast_extent.divisor();
    for (std::int64_t k = begin; k < end; k += extent - fast, ++slow, fast = 0) {
      const std::int64_t count = end - k < extent - fast ? end - k : extent - fast;
      visit(
          [&, slow, fast](std::int64_t x) {
            T acc = identity;
            f.on_line(slow, static_cast<Index>(fast + x), acc);
            return acc;
          },
          count);
    }
  }
};

// The reduce_op a Kokkos reducer stands for: Kokkos::Sum, Min and Max have one.
template <class Reducer>
struct reducer_op {
  static constexpr bool known = false;
};
template <class T, class Space>
struct reducer_op<Kokkos::Sum<T, Space>> {
  static constexpr bool known = true;
  static constexpr reduce_op value = reduce_op::sum;
};
template <class T, class Space>
struct reducer_op<Kokkos::Min<T, Space>> {
  static constexpr bool known = true;
  static constexpr reduce_op value = reduce_op::min;
};
template <class T, class Space>
struct reducer_op<Kokkos::Max<T, Space>> {
  static constexpr bool known = true;
  static constexpr reduce_op value = reduce_op::max;
};

// Op over f's terms by `strategy` into `target`: a rank-0 View that `exec` can access (asynchronous) or a host
// scalar (blocking). Op is a template argument: each result kind knows its operator, and a run-time one would
// instantiate every portable strategy's kernel for all three.
template <class T, reduce_op Op, class ExecutionSpace, class Index, class F, class Target>
void fold_index_terms(const std::string& label, const ExecutionSpace& exec, Index n, const F& f,
                      reduce_strategy strategy, Target& target) {
  constexpr const char* where = "ksync::parallel_reduce";
  check_portable_strategy(where, strategy);
  check_native_reachable<"ksync::parallel_reduce", ExecutionSpace, T>(where, "strategy", strategy,
                                                                      /*needs_cuda_compiler=*/true);
  if (is_native(strategy)) {
    const tools_region region(label);
    native<"ksync::parallel_reduce", T>(exec, n, f, std::integral_constant<reduce_op, Op>{}, strategy, target);
    return;
  }
  const IndexTerm<Index, F, T> term{f, combine<Op>::template identity<T>()};
  fold_portable_as<T, Op>(label.c_str(), exec, static_cast<std::int64_t>(n), term, strategy, target);
}

// Where `result` (a host scalar, a rank-0 View, or Kokkos::Sum / Min / Max) asks for the value.
template <class T, class ExecutionSpace, class Index, class F, class Result>
void reduce_index_terms(const std::string& label, const ExecutionSpace& exec, Index n, const F& f,
                        reduce_strategy strategy, Result&& result) {
  using Plain = std::remove_cvref_t<Result>;
  static_assert(std::is_arithmetic_v<T>,
                "ksync::parallel_reduce: a reduce_strategy folds arithmetic values; other value types run with an "
                "index_strategy");
  if constexpr (Kokkos::is_view_v<Plain>) {
    static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, typename Plain::memory_space>::accessible,
                  "ksync::parallel_reduce: a View result must live where `exec` can write it");
    Plain target = result;
    fold_index_terms<T, reduce_op::sum>(label, exec, n, f, strategy, target);
  } else if constexpr (Kokkos::is_reducer_v<Plain>) {
    static_assert(reducer_op<Plain>::known,
                  "ksync::parallel_reduce: a reduce_strategy takes Kokkos::Sum, Min or Max; other reducers run with "
                  "an index_strategy");
    constexpr reduce_op op = reducer_op<Plain>::value;
    using ResultView = typename Plain::result_view_type;
    if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, typename ResultView::memory_space>::accessible) {
      if (!result.references_scalar()) {
        ResultView target = result.view();
        fold_index_terms<T, op>(label, exec, n, f, strategy, target);
        return;
      }
    }
    T value{};
    fold_index_terms<T, op>(label, exec, n, f, strategy, value);
    result.reference() = value;
  } else {
    fold_index_terms<T, reduce_op::sum>(label, exec, n, f, strategy, result);
  }
}

}  // namespace ksync::detail
