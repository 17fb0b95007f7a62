// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// index_strategy::batched (what `automatic` runs on GPU backends) — RangePolicy over m = ceil(n / 4) work
// items, each calling f for four indices. GPU backends: item w calls f(w), f(w + m), f(w + 2m), f(w + 3m),
// so that consecutive threads still touch consecutive indices at each of the four steps; a quarter of the
// threads to start and retire, and f's setup shared by four calls. Host backends: item w calls f for the
// four consecutive indices 4w .. 4w + 3, which keeps each thread's share of the range contiguous.
#pragma once

#include <ksync/backend.hpp>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/index_strategy.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <utility>

namespace ksync::detail {

inline constexpr int index_batch = 4;

// The k-th index of item w (it may be n or past it in the last items). Host backends: the consecutive
// 4w + k; GPU backends: w + k m, m the number of items.
template <bool Host>
KOKKOS_FUNCTION constexpr std::int64_t batched_index(std::int64_t w, int k, std::int64_t m) {
  return Host ? w * index_batch + k : w + k * m;
}

template <bool Host, class Index, class F>
struct BatchedFor {
  F f;
  std::int64_t n;
  std::int64_t items;
  KOKKOS_FUNCTION void operator()(Index w) const {
    if (batched_index<Host>(w, index_batch - 1, items) < n) {  // every item but the last ones: no test per index
      for (int k = 0; k < index_batch; ++k)
        f(static_cast<Index>(batched_index<Host>(w, k, items)));
    } else {
      for (int k = 0; k < index_batch; ++k) {
        const std::int64_t i = batched_index<Host>(w, k, items);
        if (i < n) f(static_cast<Index>(i));
      }
    }
  }
};

template <bool Host, class Index, class F, class Acc>
struct BatchedReduce {
  F f;
  std::int64_t n;
  std::int64_t items;
  // f(i, acc) four times into one accumulator: the calls' loads may all be issued before the first is
  // folded, since no store stands between them.
  KOKKOS_FUNCTION void operator()(Index w, Acc& acc) const {
    if (batched_index<Host>(w, index_batch - 1, items) < n) {
      for (int k = 0; k < index_batch; ++k)
        f(static_cast<Index>(batched_index<Host>(w, k, items)), acc);
    } else {
      for (int k = 0; k < index_batch; ++k) {
        const std::int64_t i = batched_index<Host>(w, k, items);
        if (i < n) f(static_cast<Index>(i), acc);
      }
    }
  }
};

namespace index_strategies {

struct batched : implements<index_strategy::batched> {
  template <class ExecutionSpace, class Index, class F>
  static void run_for(const std::string& label, const ExecutionSpace& exec, Index n, const F& f) {
    constexpr bool host = runs_on_host<ExecutionSpace>;
    const std::int64_t items = (static_cast<std::int64_t>(n) + index_batch - 1) / index_batch;
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(exec, 0, Index(items)),
                         BatchedFor<host, Index, F>{f, n, items});
  }
  template <class Acc, class ExecutionSpace, class Index, class F, class Result>
  static void run_reduce(const std::string& label, const ExecutionSpace& exec, Index n, const F& f, Result&& result) {
    constexpr bool host = runs_on_host<ExecutionSpace>;
    const std::int64_t items = (static_cast<std::int64_t>(n) + index_batch - 1) / index_batch;
    Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(exec, 0, Index(items)),
                            BatchedReduce<host, Index, F, Acc>{f, n, items}, std::forward<Result>(result));
  }
};

}  // namespace index_strategies
}  // namespace ksync::detail
