// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// index_strategy::batched (what the 1-D `automatic` runs on GPU backends other than Kokkos::Cuda with the
// native half, and the 2-D one wherever it stays portable, but for host sums tuned folds) — on GPU backends a
// RangePolicy over m = ceil(n / 4) work items, item w calling f(w), f(w + m), f(w + 2m), f(w + 3m), so that consecutive
// threads still touch consecutive indices at each of the four steps: a quarter of the threads to start and retire, and
// f's setup shared by four calls. Host backends gain nothing from it: Kokkos' RangePolicy already gives each thread one
// contiguous share, and the batch's bound test kept the compiler from vectorizing f (2-3x slower than Kokkos' loop on
// OpenMP, docs/index-functors.md), so there the row runs Kokkos' RangePolicy(0, n) itself, as `kokkos` does. The 2-D
// form: on GPU backends the same batches over the flat index (index_pair.hpp); on host backends, where there are as
// many lines as threads, a RangePolicy over the slow index whose work items each loop over the whole fast index (a
// plain loop the compiler can vectorize, where Kokkos' MDRangePolicy walks tiles), and the flat index otherwise.
#pragma once

#include <ksync/backend.hpp>
#include <ksync/detail/index_pair.hpp>
#include <ksync/detail/parallel/kokkos.hpp>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/index_strategy.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <utility>

namespace ksync::detail {

inline constexpr int index_batch = 4;

template <class Index, class F>
struct BatchedFor {
  F f;
  std::int64_t n;
  std::int64_t items;
  KOKKOS_FUNCTION void operator()(Index w) const {
    if (w + (index_batch - 1) * items < n) {  // every item but the last ones: no test per index
      for (int k = 0; k < index_batch; ++k)
        f(static_cast<Index>(w + k * items));
    } else {
      for (int k = 0; k < index_batch; ++k) {
        const std::int64_t i = w + k * items;
        if (i < n) f(static_cast<Index>(i));
      }
    }
  }
};

template <class Index, class F, class Acc>
struct BatchedReduce {
  F f;
  std::int64_t n;
  std::int64_t items;
  // f(i, acc) four times into one accumulator: the calls' loads may all be issued before the first is
  // folded, since no store stands between them.
  KOKKOS_FUNCTION void operator()(Index w, Acc& acc) const {
    if (w + (index_batch - 1) * items < n) {
      for (int k = 0; k < index_batch; ++k)
        f(static_cast<Index>(w + k * items), acc);
    } else {
      for (int k = 0; k < index_batch; ++k) {
        const std::int64_t i = w + k * items;
        if (i < n) f(static_cast<Index>(i), acc);
      }
    }
  }
};

// Whether a host backend's 2-D form gives each work item a line of the fast index: where there are at least
// as many lines as exec has threads (a 4 x 10^7 range would otherwise run on 4 of them); with fewer, the
// flat index splits every index but keeps every thread busy.
template <class ExecutionSpace, class Index>
bool lines_fill(const ExecutionSpace& exec, Index slow_extent) {
  return slow_extent >= static_cast<Index>(exec.concurrency());
}

// One line of the fast index per work item: f(i, j) for every fast index of slow index `slow`.
template <iterate Order, class Index, class F>
struct LineFor {
  F f;
  Index fast_extent;
  KOKKOS_FUNCTION void operator()(Index slow) const {
    for (Index fast = 0; fast < fast_extent; ++fast) {
      if constexpr (Order == iterate::left) {
        f(fast, slow);
      } else {
        f(slow, fast);
      }
    }
  }
};

// The same for f(i, j, acc): each work item folds its line into the thread's accumulator.
template <iterate Order, class Index, class F>
struct LineReduce {
  F f;
  Index fast_extent;
  template <class Acc>
  KOKKOS_FUNCTION void operator()(Index slow, Acc& acc) const {
    for (Index fast = 0; fast < fast_extent; ++fast) {
      if constexpr (Order == iterate::left) {
        f(fast, slow, acc);
      } else {
        f(slow, fast, acc);
      }
    }
  }
};

namespace index_strategies {

struct batched : implements<index_strategy::batched> {
  template <class ExecutionSpace, class Index, class F>
  static void run_for(const std::string& label, const ExecutionSpace& exec, Index n, const F& f) {
    if constexpr (runs_on_host<ExecutionSpace>) {
      kokkos::run_for(label, exec, n, f);
      return;
    }
    const std::int64_t items = (static_cast<std::int64_t>(n) + index_batch - 1) / index_batch;
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(exec, 0, Index(items)),
                         BatchedFor<Index, F>{f, n, items});
  }
  template <class ExecutionSpace, class Index, class F>
  static void run_for_pairs(const std::string& label, const ExecutionSpace& exec, Index rows, Index cols, iterate order,
                            const F& f) {
    with_iterate(order, [&]<iterate Order>() {
      if constexpr (runs_on_host<ExecutionSpace>) {
        if (lines_fill(exec, Order == iterate::left ? cols : rows)) {
          const Index slow = Order == iterate::left ? cols : rows;
          Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(exec, 0, slow),
                               LineFor<Order, Index, F>{f, Order == iterate::left ? rows : cols});
          return;
        }
      }
      run_for(label, exec, rows * cols, make_index_pair_for<Order>(f, rows, cols));
    });
  }
  // Host backends where the lines fill exec (lines_fill) only: elsewhere the 2-D reduction runs the 1-D
  // strategies over the flat index (parallel_reduce.hpp).
  template <class Acc, class ExecutionSpace, class Index, class F, class Result>
  static void run_reduce_pairs(const std::string& label, const ExecutionSpace& exec, Index rows, Index cols,
                               iterate order, const F& f, Result&& result) {
    static_assert(runs_on_host<ExecutionSpace>, "ksync: the line-by-line 2-D reduction is for host backends");
    with_iterate(order, [&]<iterate Order>() {
      const Index slow = Order == iterate::left ? cols : rows;
      Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(exec, 0, slow),
                              LineReduce<Order, Index, F>{f, Order == iterate::left ? rows : cols},
                              std::forward<Result>(result));
    });
  }
  template <class Acc, class ExecutionSpace, class Index, class F, class Result>
  static void run_reduce(const std::string& label, const ExecutionSpace& exec, Index n, const F& f, Result&& result) {
    if constexpr (runs_on_host<ExecutionSpace>) {
      kokkos::run_reduce<Acc>(label, exec, n, f, std::forward<Result>(result));
      return;
    }
    const std::int64_t items = (static_cast<std::int64_t>(n) + index_batch - 1) / index_batch;
    Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(exec, 0, Index(items)),
                            BatchedReduce<Index, F, Acc>{f, n, items}, std::forward<Result>(result));
  }
};

}  // namespace index_strategies
}  // namespace ksync::detail
