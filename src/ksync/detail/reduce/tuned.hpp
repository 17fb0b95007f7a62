// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// reduce_strategy::tuned (portable; what `automatic` runs where the native last_block cannot): RangePolicy
// over `lanes` indices (the backend's concurrency at most). On host backends lane l folds one contiguous chunk
// into independent accumulators the compiler vectorizes. On GPUs each lane keeps eight loads in flight:
// 16-byte packs l, l + lanes, ... when the data is contiguous and aligned (detail/packs.hpp), else elements in
// tiles that keep a block's loads together (tuned_walk below).
#pragma once

#include <ksync/detail/index_policy.hpp>
#include <ksync/detail/packs.hpp>
#include <ksync/detail/reduction.hpp>
#include <ksync/detail/strategy_table.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace ksync::detail::reduce_strategies {

// How a `tuned` lane walks the data: one contiguous chunk (host backends); on GPU backends `in_flight` items
// a step, items being 16-byte packs (packed: packable data, then the last n % width elements one at a time) or
// elements (strided: anything else, an index functor's terms among them).
//   packed   step s of lane l loads packs (s * in_flight + k) * lanes + l: a warp's loads are consecutive.
//   strided  the lanes go in groups of 256; a group's step loads a tile of 256 * in_flight consecutive
//            elements, lane t of the group elements t, t + 256, ... Loading l, l + lanes, ... instead put a
//            thread's loads megabytes apart: a double Dot ran at 0.70x Kokkos' own reduction (ncu: 72 % of DRAM
//            peak against Kokkos' 86 %); tiled, at 1.06x (docs/index-functors.md).
// Every lane ends with one step of guarded loads instead of a loop of single ones: a loop that loaded one item
// at a time waited out a load's latency per item at the end of the kernel.
enum class tuned_walk { chunk, strided, packed };

template <reduce_op Op, class Acc, class Term, tuned_walk Walk>
struct TunedFold {
  static constexpr int chains = 8;     // host: independent accumulators, vectorizable
  static constexpr int in_flight = 8;  // GPU: loads in flight per lane, one accumulator each
  static constexpr std::int64_t tile_lanes = 256;
  static constexpr int short_line_terms = 2 * chains;  // host: shorter 2-D lines go in groups (fold_short_lines)
  static_assert(in_flight <= chains, "a GPU lane folds each load in flight into an accumulator of its own");
  Term term;
  std::int64_t n;
  std::int64_t lanes;
  std::int64_t chunk;  // chunk only: elements per lane

  KOKKOS_FUNCTION void operator()(std::int64_t lane, Acc& acc) const {
    Acc partial[chains];
    for (auto& value : partial)
      value = combine<Op>::template identity<Acc>();
    if constexpr (Walk == tuned_walk::chunk) {
      fold_chunk(lane, partial);
    } else if constexpr (Walk == tuned_walk::strided) {
      using TermValue = decltype(term(std::int64_t{}));
      walk<TermValue>(
          lane, n, partial, [&](std::int64_t i) { return term(i); },
          [](Acc& into, const TermValue& value) { combine<Op>::into(into, value); });
    } else {
      using Pack = decltype(term.pack(std::int64_t{}));
      const std::int64_t packs = n / Pack::width;
      walk<Pack>(
          lane, packs, partial, [&](std::int64_t p) { return term.pack(p); },
          [](Acc& into, const Pack& pack) {
            Acc value = static_cast<Acc>(pack.value[0]);
            for (int k = 1; k < Pack::width; ++k)
              combine<Op>::into(value, pack.value[k]);
            combine<Op>::into(into, value);
          });
      for (std::int64_t i = packs * Pack::width + lane; i < n; i += lanes)
        combine<Op>::into(partial[0], term(i));
    }
    for (const auto& value : partial)
      combine<Op>::into(acc, value);
  }

  // Host backends: lane l's contiguous chunk. A term over pairs (i, j) (a 2-D index functor's, index_terms.hpp)
  // goes by lines: lines under short_line_terms whole (fold_short_lines), longer ones piece by piece, each piece
  // a plain loop over the fast index: through the flat index, a split per term kept the loop from vectorizing.
  KOKKOS_FUNCTION void fold_chunk(std::int64_t lane, Acc* partial) const {
    const std::int64_t begin = lane * chunk;
    const std::int64_t end = begin + chunk < n ? begin + chunk : n;
    if constexpr (requires { term.for_each_line(begin, end, [](const auto&, std::int64_t) {}); }) {
      const std::int64_t length = term.line_length();
      if (length < short_line_terms) {
        fold_short_lines(begin, end, length, partial);
      } else {
        term.for_each_line(begin, end,
                           [&](const auto& at, std::int64_t count) { fold_run<line_piece::yes>(at, count, partial); });
      }
    } else {
      fold_run<line_piece::no>([&](std::int64_t i) { return term(begin + i); }, end - begin, partial);
    }
  }

  // A 2-D functor's terms [begin, end) whose lines hold fewer than short_line_terms (a point's three coordinates,
  // a few vectors side by side). As pieces, a line shorter than the chains adds its terms one after the other
  // into one chain, and through the flat index each term would pay a division. Here whole lines go in groups of
  // chains / Length (one line from eight terms up), term x of the group's line g into chain
  // (g * Length + x) % chains, each place known at compile time (one build per length), and lines of 8 to 15
  // terms are spared the pieces' bookkeeping. The float Dot over 2^20 x 1 on 2 OpenMP threads (the 2-core
  // machine, 2026-12-07, commits 68fb495 and c37d5ed give the commands): 0.98 ms as pieces, 0.72 through the
  // flat index, 0.25 so, MDRangePolicy 1.9; over 2^17 x 8, 0.39 ms as pieces, 0.13 so.
  KOKKOS_FUNCTION void fold_short_lines(std::int64_t begin, std::int64_t end, std::int64_t length, Acc* partial) const {
    fold_short_lines(begin, end, length, partial, std::make_integer_sequence<int, short_line_terms - 1>{});
  }
  // Runs fold_short_lines<Length> for Length = length, one of 1 ... short_line_terms - 1 (Shorter + 1); lines
  // of length 0 hold no term. Any other length is a ksync bug (fold_chunk sends only shorter lines): it aborts
  // rather than fold nothing.
  template <int... Shorter>
  KOKKOS_FUNCTION void fold_short_lines(std::int64_t begin, std::int64_t end, std::int64_t length, Acc* partial,
                                        std::integer_sequence<int, Shorter...> /*lengths*/) const {
    const bool folded = ((length == Shorter + 1 && (fold_short_lines<Shorter + 1>(begin, end, partial), true)) || ...);
    if (!folded && length != 0)
      Kokkos::abort("ksync::detail::TunedFold::fold_short_lines: a line length of short_line_terms or more");
  }
  template <int Length>
  KOKKOS_FUNCTION void fold_short_lines(std::int64_t begin, std::int64_t end, Acc* partial) const {
    static_assert(Length >= 1 && Length < short_line_terms, "a short line holds fewer than short_line_terms terms");
    constexpr std::int64_t group = Length < chains ? chains / Length : 1;
    constexpr std::int64_t group_terms = group * Length;
    if (begin >= end) return;
    std::int64_t slow = 0;
    std::int64_t fast = 0;
    term.locate(begin, slow, fast);
    std::int64_t k = begin;
    if (fast != 0) {  // the rest of the line the chunk starts in (which may also end it)
      for (int x = 0; x < Length; ++x) {
        if (x >= fast && k + (x - fast) < end) combine<Op>::into(partial[x % chains], term.at_pair(slow, x));
      }
      k += Length - fast;
      ++slow;
    }
    for (; k + group_terms <= end; k += group_terms, slow += group) {
      for (int g = 0; g < group; ++g) {
        for (int x = 0; x < Length; ++x)
          combine<Op>::into(partial[(g * Length + x) % chains], term.at_pair(slow + g, x));
      }
    }
    if constexpr (group > 1) {  // the whole lines left after the groups (a group of one leaves none)
      for (; k + Length <= end; k += Length, ++slow) {
        for (int x = 0; x < Length; ++x)
          combine<Op>::into(partial[x % chains], term.at_pair(slow, x));
      }
    }
    for (int x = 0; x < Length; ++x) {  // the start of the line the chunk ends in
      if (k + x < end) combine<Op>::into(partial[x % chains], term.at_pair(slow, x));
    }
  }

  // Folds at(0 .. count-1) into the chains; Piece: whether the run is a piece of a 2-D functor's line.
  enum class line_piece : bool { no, yes };
  template <line_piece Piece, class At>
  KOKKOS_FUNCTION void fold_run(const At& at, std::int64_t count, Acc* partial) const {
    std::int64_t i = 0;
    using TermValue = decltype(term(std::int64_t{}));
    if constexpr (Op == reduce_op::sum && std::is_same_v<Acc, double> && std::is_same_v<TermValue, float>) {
      // A float sum kept in double: add runs of `run` terms per lane in float first (32 float lanes: enough
      // independent vector adds to hide their latency), then widen. Widening every term, or 8 lanes, ran
      // at 0.3-0.7x a read-only stream while the data sat in cache (2 OpenMP threads); this runs at about
      // 1x from 2^18 floats up. A float run of 128 terms adds at most gamma_float(128) * sum |x| of error.
      // A piece of a 2-D functor's line stages what is left too (under 128 steps, from four up: below), so
      // that a short line is not widened term by term: the 2-D float Dot over 256 x 256 reads 1.57x MDRangePolicy so
      // (docs/results/2026-12-07-cpu-462618c) where it read 1.0x widened (a run not committed). A 1-D chunk
      // keeps the order it always had: its rest, under 4096 terms, widened term by term.
      constexpr int width = 32;  // float lanes: eight SSE (four AVX) registers, enough adds in flight
      constexpr std::int64_t run = 128;
      // A rest of fewer steps is cheaper widened term by term: staging one step adds 32 float adds to the
      // 32 widenings it was to save (a 2-D float Dot over 32768 x 32 ran at 0.64-0.70x MDRangePolicy so).
      constexpr std::int64_t staged_rest_steps = 4;
      const auto stage_run = [&](std::int64_t steps) {
        float stage[width] = {};
        for (std::int64_t j = 0; j < steps * width; j += width) {
          for (int k = 0; k < width; ++k)
            stage[k] += at(i + j + k);
        }
        for (int k = 0; k < width; ++k)
          partial[k % chains] += static_cast<double>(stage[k]);
        i += steps * width;
      };
      while (i + width * run <= count)
        stage_run(run);
      if constexpr (Piece == line_piece::yes) {
        if (i + staged_rest_steps * width <= count) stage_run((count - i) / width);
      }
    }
    for (; i + chains <= count; i += chains) {
      for (int k = 0; k < chains; ++k)
        combine<Op>::into(partial[k], at(i + k));
    }
    for (; i < count; ++i)
      combine<Op>::into(partial[0], at(i));
  }

  // GPU backends: lane l's share of `count` items; load(i) reads item i, fold(into, loaded) folds it. The
  // whole steps cover [0, full); the rest, fewer than lanes * in_flight items, goes in one guarded step.
  template <class Loaded, class Load, class Fold>
  KOKKOS_FUNCTION void walk(std::int64_t lane, std::int64_t count, Acc* partial, const Load& load,
                            const Fold& fold) const {
    const std::int64_t step = lanes * in_flight;
    const std::int64_t full = count / step * step;
    std::int64_t first = lane;
    std::int64_t spread = lanes;
    if constexpr (Walk == tuned_walk::strided) {  // tiles (above); the last group may hold fewer lanes
      const std::int64_t group = lane / tile_lanes;
      spread = lanes - group * tile_lanes < tile_lanes ? lanes - group * tile_lanes : tile_lanes;
      first = group * tile_lanes * in_flight + lane % tile_lanes;
    }
    for (; first < full; first += step) {
      Loaded loaded[in_flight];
      for (int k = 0; k < in_flight; ++k)
        loaded[k] = load(first + k * spread);
      for (int k = 0; k < in_flight; ++k)
        fold(partial[k], loaded[k]);
    }
    Loaded loaded[in_flight];
    for (int k = 0; k < in_flight; ++k) {
      if (full + lane + k * lanes < count) loaded[k] = load(full + lane + k * lanes);
    }
    for (int k = 0; k < in_flight; ++k) {
      if (full + lane + k * lanes < count) fold(partial[k], loaded[k]);
    }
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
      // GPU: at least 16 elements a lane, a quarter of the backend's concurrency at most, in blocks of 256 of
      // which two are resident per multiprocessor (up to 128 registers: eight loads in flight, no spills).
      // On the H200 this beat half the lanes with four packs in flight and all of them with eight elements
      // in flight (docs/index-functors.md, docs/results/2026-12-04-h200-53cba8e).
      const std::int64_t concurrency = std::max<std::int64_t>(1, exec.concurrency());
      const std::int64_t lanes = std::clamp<std::int64_t>((n + 15) / 16, 1, std::max<std::int64_t>(1, concurrency / 4));
      using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>, Kokkos::LaunchBounds<256, 2>>;
      if (term.packable()) {
        Kokkos::parallel_reduce(label, Policy(exec, 0, lanes),
                                TunedFold<Op, Acc, Term, tuned_walk::packed>{term, n, lanes, 0}, reducer);
      } else {
        Kokkos::parallel_reduce(label, Policy(exec, 0, lanes),
                                TunedFold<Op, Acc, Term, tuned_walk::strided>{term, n, lanes, 0}, reducer);
      }
    }
  }
};

}  // namespace ksync::detail::reduce_strategies
