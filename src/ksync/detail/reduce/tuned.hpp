// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// reduce_strategy::tuned (portable; what `automatic` runs): RangePolicy over `lanes` indices (the backend's
// concurrency at most). On GPUs lane l folds the 16-byte packs l, l + lanes, ... (consecutive lanes read
// consecutive addresses; four packs in flight per thread) when the data is contiguous and aligned
// (detail/packs.hpp), element by element into eight accumulators otherwise; on host backends lane l folds
// one contiguous chunk into independent accumulators the compiler vectorizes.
#pragma once

#include <ksync/detail/index_policy.hpp>
#include <ksync/detail/packs.hpp>
#include <ksync/detail/reduction.hpp>
#include <ksync/detail/strategy_table.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace ksync::detail::reduce_strategies {

// How a `tuned` lane walks the data: one contiguous chunk (host backends); i, i + lanes, ... one element at
// a time (GPU backends, data not packable); 16-byte packs p, p + lanes, ... then the last n % width
// elements one at a time (GPU backends, packable data).
enum class tuned_walk { chunk, strided, packed };

template <reduce_op Op, class Acc, class Term, tuned_walk Walk>
struct TunedFold {
  static constexpr int chains = 8;           // host: vectorizable; GPU: eight loads in flight per thread
  static constexpr int packs_in_flight = 4;  // GPU, packed: four 16-byte loads in flight per thread
  Term term;
  std::int64_t n;
  std::int64_t lanes;
  std::int64_t chunk;  // chunk only: elements per lane
  // The packed walk keeps one accumulator per pack in flight: fewer registers, so that every resident
  // thread keeps its loads in flight without spilling (see run() below).
  static constexpr int accumulators = Walk == tuned_walk::packed ? packs_in_flight : chains;
  KOKKOS_FUNCTION void operator()(std::int64_t lane, Acc& acc) const {
    Acc partial[accumulators];
    for (auto& value : partial)
      value = combine<Op>::template identity<Acc>();
    if constexpr (Walk == tuned_walk::chunk) {
      const std::int64_t begin = lane * chunk;
      const std::int64_t end = begin + chunk < n ? begin + chunk : n;
      std::int64_t i = begin;
      using TermValue = decltype(term(std::int64_t{}));
      if constexpr (Op == reduce_op::sum && std::is_same_v<Acc, double> && std::is_same_v<TermValue, float>) {
        // A float sum kept in double: add runs of `run` terms per lane in float first (32 float lanes: enough
        // independent vector adds to hide their latency), then widen. Widening every term, or 8 lanes, ran
        // at 0.3-0.7x a read-only stream while the data sat in cache (2 OpenMP threads); this runs at about
        // 1x from 2^18 floats up. A float run of 128 terms adds at most gamma_float(128) * sum |x| of error.
        constexpr int width = 32;  // float lanes: eight SSE (four AVX) registers, enough adds in flight
        constexpr std::int64_t run = 128;
        for (; i + width * run <= end; i += width * run) {
          float stage[width] = {};
          for (std::int64_t j = 0; j < width * run; j += width) {
            for (int k = 0; k < width; ++k)
              stage[k] += term(i + j + k);
          }
          for (int k = 0; k < width; ++k)
            partial[k % chains] += static_cast<double>(stage[k]);
        }
      }
      for (; i + chains <= end; i += chains) {
        for (int k = 0; k < chains; ++k)
          combine<Op>::into(partial[k], term(i + k));
      }
      for (; i < end; ++i)
        combine<Op>::into(partial[0], term(i));
    } else if constexpr (Walk == tuned_walk::strided) {
      std::int64_t i = lane;
      for (; i + (chains - 1) * lanes < n; i += chains * lanes) {
        for (int k = 0; k < chains; ++k)
          combine<Op>::into(partial[k], term(i + k * lanes));
      }
      for (; i < n; i += lanes)
        combine<Op>::into(partial[0], term(i));
    } else {
      using Pack = decltype(term.pack(std::int64_t{}));
      const std::int64_t packs = n / Pack::width;
      const auto fold_pack = [&](Acc& into, const Pack& pack) {
        Acc value = static_cast<Acc>(pack.value[0]);
        for (int k = 1; k < Pack::width; ++k)
          combine<Op>::into(value, pack.value[k]);
        combine<Op>::into(into, value);
      };
      std::int64_t p = lane;
      for (; p + (packs_in_flight - 1) * lanes < packs; p += packs_in_flight * lanes) {
        Pack loaded[packs_in_flight];
        for (int k = 0; k < packs_in_flight; ++k)
          loaded[k] = term.pack(p + k * lanes);
        for (int k = 0; k < packs_in_flight; ++k)
          fold_pack(partial[k], loaded[k]);
      }
      for (; p < packs; p += lanes)
        fold_pack(partial[0], term.pack(p));
      for (std::int64_t i = packs * Pack::width + lane; i < n; i += lanes)
        combine<Op>::into(partial[0], term(i));
    }
    for (const auto& value : partial)
      combine<Op>::into(acc, value);
  }
};

struct tuned : implements<reduce_strategy::tuned> {
  template <reduce_op Op, class Acc, class ExecutionSpace, class Term, class Reducer>
  static void run(const char* label, const ExecutionSpace& exec, std::int64_t n, const Term& term,
                  const Reducer& reducer) {
    if constexpr (runs_on_host<ExecutionSpace>) {
      const auto [lanes, chunk] = split_for_host(exec, n);
      Kokkos::parallel_reduce(label, index_policy<ExecutionSpace>(exec, 0, lanes),
                              TunedFold<Op, Acc, Term, tuned_walk::chunk>{term, n, lanes, chunk}, reducer);
    } else {
      // GPU: at least 16 elements per lane. Kokkos sizes the grid as lanes / 256 blocks of 256 threads, at
      // most concurrency / 256, and the launch bounds decide how many are resident per multiprocessor. Element
      // by element: 8 per multiprocessor (32 registers), one lane per resident thread. Packed: 4 per
      // multiprocessor (64 registers: four 16-byte packs in flight and no spills), so half as many lanes.
      const std::int64_t concurrency = std::max<std::int64_t>(1, exec.concurrency());
      if (term.packable()) {
        const std::int64_t lanes =
            std::clamp<std::int64_t>((n + 15) / 16, 1, std::max<std::int64_t>(1, concurrency / 2));
        using PackedPolicy =
            Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>, Kokkos::LaunchBounds<256, 4>>;
        Kokkos::parallel_reduce(label, PackedPolicy(exec, 0, lanes),
                                TunedFold<Op, Acc, Term, tuned_walk::packed>{term, n, lanes, 0}, reducer);
      } else {
        const std::int64_t lanes = std::clamp<std::int64_t>((n + 15) / 16, 1, concurrency);
        using StridedPolicy =
            Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>, Kokkos::LaunchBounds<256, 8>>;
        Kokkos::parallel_reduce(label, StridedPolicy(exec, 0, lanes),
                                TunedFold<Op, Acc, Term, tuned_walk::strided>{term, n, lanes, 0}, reducer);
      }
    }
  }
};

}  // namespace ksync::detail::reduce_strategies
