// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The portable reduction strategies (Kokkos only, any backend): fold term(0) ... term(n-1) with a
// reduce_op into a Kokkos reducer's target (a rank-0 View: asynchronous; a host scalar: blocking).
//   kokkos  parallel_reduce over RangePolicy(0, n): one term per index, what users write.
//   team    TeamPolicy: team t folds a contiguous chunk with TeamThreadRange, one team value per team.
//   tuned   RangePolicy over `lanes` indices (the backend's concurrency at most). On GPUs lane l folds
//           the 16-byte packs l, l + lanes, ... (consecutive lanes read consecutive addresses; four packs in
//           flight per thread) when the data is contiguous and aligned (detail/packs.hpp), element by
//           element into eight accumulators otherwise; on host backends lane l folds one contiguous chunk
//           into independent accumulators the compiler vectorizes.
#pragma once

#include <ksync/compat.hpp>
#include <ksync/types.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace ksync::detail {

// Whether `ExecutionSpace` runs on the host (its threads share the CPU's caches: contiguous chunks win).
template <class ExecutionSpace>
inline constexpr bool runs_on_host =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecutionSpace::memory_space>::accessible;

// The type partial results are kept in. On host backends each thread adds a contiguous share of the data in
// sequence, and a float partial of values of one sign stops growing once it passes 2^24 (a small addend
// rounds away; a benchmark check failed at 2^24 and 2^28 floats on 2 OpenMP threads). So float sums are
// accumulated in double there, at no cost to a memory-bound loop. On GPU backends each thread adds only a
// few values before a tree combines them (as CUB does), and float stays float. min and max never round.
template <class ExecutionSpace, reduce_op Op, class T>
using accumulator_t =
    std::conditional_t<Op == reduce_op::sum && std::is_same_v<T, float> && runs_on_host<ExecutionSpace>, double, T>;

// How a reduce_op combines an accumulator with a term, and its identity.
template <reduce_op Op>
struct combine;
template <>
struct combine<reduce_op::sum> {
  template <class Acc>
  KOKKOS_FUNCTION static constexpr Acc identity() {
    return Acc{};
  }
  template <class Acc, class Term>
  KOKKOS_FUNCTION static constexpr void into(Acc& acc, const Term& term) {
    acc += static_cast<Acc>(term);
  }
};
// min and max start from +-infinity for floating types and from the largest / lowest value otherwise, as
// ksync::cuda does. ksync defines these itself: Kokkos' reduction_identity differs between versions (see
// compat.hpp).
template <>
struct combine<reduce_op::min> {
  template <class Acc>
  KOKKOS_FUNCTION static constexpr Acc identity() {
    if constexpr (std::is_floating_point_v<Acc>) {
      return Kokkos::Experimental::infinity_v<Acc>;
    } else {
      return Kokkos::Experimental::finite_max_v<Acc>;
    }
  }
  template <class Acc, class Term>
  KOKKOS_FUNCTION static constexpr void into(Acc& acc, const Term& term) {
    if (static_cast<Acc>(term) < acc) acc = static_cast<Acc>(term);
  }
};
template <>
struct combine<reduce_op::max> {
  template <class Acc>
  KOKKOS_FUNCTION static constexpr Acc identity() {
    if constexpr (std::is_floating_point_v<Acc>) {
      return -Kokkos::Experimental::infinity_v<Acc>;
    } else {
      return Kokkos::Experimental::finite_min_v<Acc>;
    }
  }
  template <class Acc, class Term>
  KOKKOS_FUNCTION static constexpr void into(Acc& acc, const Term& term) {
    if (acc < static_cast<Acc>(term)) acc = static_cast<Acc>(term);
  }
};

// The Kokkos reducer for each reduce_op.
template <reduce_op Op, class T, class Space>
struct kokkos_reducer;
template <class T, class Space>
struct kokkos_reducer<reduce_op::sum, T, Space> {
  using type = Kokkos::Sum<T, Space>;
};
template <class T, class Space>
struct kokkos_reducer<reduce_op::min, T, Space> {
  using type = Kokkos::Min<T, Space>;
};
template <class T, class Space>
struct kokkos_reducer<reduce_op::max, T, Space> {
  using type = Kokkos::Max<T, Space>;
};

// The memory space a reducer's target lives in: a View's own, or the host for a scalar.
template <class Target, class = void>
struct target_space {
  using type = Kokkos::HostSpace;
};
template <class Target>
struct target_space<Target, std::enable_if_t<Kokkos::is_view_v<Target>>> {
  using type = typename Target::memory_space;
};

// The Kokkos reducer of `Op` writing into `target` (a rank-0 View, or a host scalar).
template <reduce_op Op, class Acc, class Target>
KOKKOS_FUNCTION auto make_reducer(Target& target) {
  return typename kokkos_reducer<Op, Acc, typename target_space<std::remove_const_t<Target>>::type>::type(target);
}

// Calls body(std::integral_constant<reduce_op, op>{}): a run-time op to a compile-time one.
template <class Body>
decltype(auto) with_reduce_op(reduce_op op, Body&& body) {
  switch (op) {
    case reduce_op::min:
      return body(std::integral_constant<reduce_op, reduce_op::min>{});
    case reduce_op::max:
      return body(std::integral_constant<reduce_op, reduce_op::max>{});
    default:
      return body(std::integral_constant<reduce_op, reduce_op::sum>{});
  }
}

// Host backends: how the tuned kernels split n elements — one contiguous chunk per lane, at least 4096
// elements each, no more lanes than the backend's threads.
struct host_chunks {
  std::int64_t lanes;
  std::int64_t chunk;  // elements per lane
};
template <class ExecutionSpace>
host_chunks split_for_host(const ExecutionSpace& exec, std::int64_t n) {
  const std::int64_t lanes =
      std::min<std::int64_t>(std::max<std::int64_t>(1, exec.concurrency()), std::max<std::int64_t>(1, n / 4096));
  return {.lanes = lanes, .chunk = (n + lanes - 1) / lanes};
}

template <class ExecutionSpace>
using IndexPolicy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;

template <reduce_op Op, class Acc, class Term>
struct RangeFold {
  Term term;
  KOKKOS_FUNCTION void operator()(std::int64_t i, Acc& acc) const { combine<Op>::into(acc, term(i)); }
};

template <reduce_op Op, class Acc, class Term, class Member>
struct TeamFold {
  Term term;
  std::int64_t n;
  std::int64_t chunk;
  KOKKOS_FUNCTION void operator()(const Member& member, Acc& acc) const {
    const std::int64_t begin = member.league_rank() * chunk;
    const std::int64_t end = begin + chunk < n ? begin + chunk : n;
    Acc team_value = combine<Op>::template identity<Acc>();
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(member, begin, end),
        [&](std::int64_t i, Acc& thread_value) { combine<Op>::into(thread_value, term(i)); },
        make_reducer<Op, Acc>(team_value));
    // No team_barrier needed: the nested parallel_reduce returns the team's value to every thread of it.
    Kokkos::single(Kokkos::PerTeam(member), [&]() { combine<Op>::into(acc, team_value); });
  }
};

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
  // thread keeps its loads in flight without spilling (see fold()).
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

// Folds term(0 .. n-1) by the portable `strategy` (kokkos, team or tuned; automatic means tuned) into
// `target`. `label` names the kernel ("ksync::<module>::<op>").
template <reduce_op Op, class Acc, class ExecutionSpace, class Term, class Target>
void fold(const char* label, const ExecutionSpace& exec, std::int64_t n, const Term& term, reduce_strategy strategy,
          Target& target) {
  auto reducer = make_reducer<Op, Acc>(target);
  if (strategy == reduce_strategy::kokkos) {
    Kokkos::parallel_reduce(label, IndexPolicy<ExecutionSpace>(exec, 0, n), RangeFold<Op, Acc, Term>{term}, reducer);
  } else if (strategy == reduce_strategy::team) {
    using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
    // Chunks of 8192 elements, but no more teams than the backend runs at once (its concurrency).
    const std::int64_t max_teams =
        std::max<std::int64_t>(1, exec.concurrency() / (runs_on_host<ExecutionSpace> ? 1 : 256));
    const std::int64_t teams = std::clamp<std::int64_t>((n + 8191) / 8192, 1, max_teams);
    const std::int64_t chunk = (n + teams - 1) / teams;
    Kokkos::parallel_reduce(label, Policy(exec, static_cast<int>(teams), Kokkos::AUTO),
                            TeamFold<Op, Acc, Term, typename Policy::member_type>{term, n, chunk}, reducer);
  } else if constexpr (runs_on_host<ExecutionSpace>) {
    const auto [lanes, chunk] = split_for_host(exec, n);
    Kokkos::parallel_reduce(label, IndexPolicy<ExecutionSpace>(exec, 0, lanes),
                            TunedFold<Op, Acc, Term, tuned_walk::chunk>{term, n, lanes, chunk}, reducer);
  } else {
    // GPU: at least 16 elements per lane. Kokkos sizes the grid as lanes / 256 blocks of 256 threads, at
    // most concurrency / 256, and the launch bounds decide how many are resident per multiprocessor. Element
    // by element: 8 per multiprocessor (32 registers), one lane per resident thread. Packed: 4 per
    // multiprocessor (64 registers: four 16-byte packs in flight and no spills), so half as many lanes.
    const std::int64_t concurrency = std::max<std::int64_t>(1, exec.concurrency());
    if (term.packable()) {
      const std::int64_t lanes = std::clamp<std::int64_t>((n + 15) / 16, 1, std::max<std::int64_t>(1, concurrency / 2));
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

}  // namespace ksync::detail
