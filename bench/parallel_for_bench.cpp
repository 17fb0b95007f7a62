// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Index functors as Kokkos code writes them: BabelStream's Copy, Mul, Add, Triad (ksync::parallel_for) and
// Dot (ksync::parallel_reduce) in float and double, every index strategy this backend reaches beside
// Kokkos' own RangePolicy over the same functor (rows kokkos/stream/...), in one run; Dot also with every
// reduce strategy reached here (rows .../reduce-<strategy>; bridge/... for the native ones). The native suite has
// the hand-written CUDA kernels and the native strategies; both suites have the device copy. The 2-D rows
// (<source>/stream/2d_<kernel>/...: Copy, Triad and Dot as f(i, j) over square Views, the argument the
// extent) set ksync's 2-D form against Kokkos' MDRangePolicy.
#include "portable.hpp"
#include "stream_kernels.hpp"

#include <ksync/parallel_for.hpp>
#include <ksync/parallel_reduce.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

namespace ksync::bench {
namespace {

template <class T>
struct stream_arrays {
  Kokkos::View<T*> a, b, c;
  explicit stream_arrays(const Exec& exec, std::int64_t n)
      : a(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::bench::a"), n),
        b(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::bench::b"), n),
        c(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::bench::c"), n) {
    Kokkos::deep_copy(exec, a, static_cast<T>(stream::initial_a));
    Kokkos::deep_copy(exec, b, static_cast<T>(stream::initial_b));
    Kokkos::deep_copy(exec, c, static_cast<T>(stream::initial_c));
    exec.fence("ksync::bench::stream_arrays");
  }
  [[nodiscard]] const Kokkos::View<T*>& array(int which) const { return which == 0 ? a : which == 1 ? b : c; }
};

// How many elements of `data` differ from `value`.
template <class T>
struct CountOthers {
  Kokkos::View<const T*> data;
  T value;
  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t& count) const { count += data(i) == value ? 0 : 1; }
};

template <class T>
void check_written(benchmark::State& state, const Exec& exec, const stream_arrays<T>& arrays, stream::kernel k) {
  const auto& written = arrays.array(stream::written_array(k));
  const auto n = static_cast<std::int64_t>(written.extent(0));
  std::int64_t others = 0;
  Kokkos::parallel_reduce("ksync::bench::check", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                          CountOthers<T>{written, static_cast<T>(stream::expected_value(k))}, others);
  check_mismatches(state, others, n, std::string(stream::name(k)));
}

// One row: kernel k over n elements of T, by ksync::parallel_for with `strategy`, or (no strategy: the
// baseline) by Kokkos::parallel_for over RangePolicy(0, n) with the same functor.
template <class T>
void time_stream(benchmark::State& state, stream::kernel k, std::optional<index_strategy> strategy) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const stream_arrays<T> arrays(exec, n);
  const auto bytes = stream::arrays_moved(k) * n * static_cast<std::int64_t>(sizeof(T));
  stream::with_kernel<Kokkos::View<T*>, T>(k, arrays.a, arrays.b, arrays.c, [&](const auto& functor) {
    time_on_instance(state, exec, bytes, [&] {
      if (!strategy) {
        Kokkos::parallel_for("kokkos_stream", Kokkos::RangePolicy<Exec>(exec, 0, n), functor);
      } else {
        ksync::parallel_for(exec, n, functor, *strategy);
      }
    });
  });
  check_written(state, exec, arrays, k);
  state.counters["n"] = static_cast<double>(n);
}

// Dot by ksync::parallel_reduce with `strategy` (an index_strategy or a reduce_strategy), or (no strategy: the
// baseline) by Kokkos' RangePolicy.
template <class T, class Strategy>
void time_dot(benchmark::State& state, std::optional<Strategy> strategy) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const stream_arrays<T> arrays(exec, n);
  const Kokkos::View<T> sum("ksync::bench::sum");
  const stream::dot<Kokkos::View<T*>, T> functor{arrays.a, arrays.b};
  time_on_instance(state, exec, 2 * n * static_cast<std::int64_t>(sizeof(T)), [&] {
    if (!strategy) {
      Kokkos::parallel_reduce("kokkos_stream_dot", Kokkos::RangePolicy<Exec>(exec, 0, n), functor, sum);
    } else {
      ksync::parallel_reduce(exec, n, functor, sum, *strategy);
    }
  });
  T value{};
  Kokkos::deep_copy(exec, value, sum);
  exec.fence("ksync::bench::dot");
  stream::check_dot(state, static_cast<double>(value), n);
}

// The 2-D rows (stream/2d_<kernel>): the same kernels as f(i, j) over square Views in the backend's default layout,
// Kokkos' MDRangePolicy<Rank<2>> in its default iteration against ksync::parallel_for(exec, rows, cols, f); and the
// Dot over rows x cols Views of one size in several shapes (stream/2d_dot_shape).
template <class T>
struct stream_matrices {
  Kokkos::View<T**> a, b, c;
  stream_matrices(const Exec& exec, std::int64_t rows, std::int64_t cols)
      : a(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::bench::a"), rows, cols),
        b(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::bench::b"), rows, cols),
        c(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::bench::c"), rows, cols) {
    Kokkos::deep_copy(exec, a, static_cast<T>(stream::initial_a));
    Kokkos::deep_copy(exec, b, static_cast<T>(stream::initial_b));
    Kokkos::deep_copy(exec, c, static_cast<T>(stream::initial_c));
    exec.fence("ksync::bench::stream_matrices");
  }
};

template <class T>
void time_stream_pairs(benchmark::State& state, stream::kernel k, std::optional<index_strategy> strategy) {
  const std::int64_t extent = state.range(0);
  const Exec exec;
  const stream_matrices<T> matrices(exec, extent, extent);
  const std::int64_t n = extent * extent;
  const auto bytes = stream::arrays_moved(k) * n * static_cast<std::int64_t>(sizeof(T));
  stream::with_kernel<Kokkos::View<T**>, T>(k, matrices.a, matrices.b, matrices.c, [&](const auto& functor) {
    time_on_instance(state, exec, bytes, [&] {
      if (!strategy) {
        Kokkos::parallel_for("kokkos_stream2d",
                             Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>(exec, {0, 0}, {extent, extent}), functor);
      } else {
        ksync::parallel_for(exec, extent, extent, functor, *strategy);
      }
    });
  });
  const int written = stream::written_array(k);
  const Kokkos::View<T**> out = written == 0 ? matrices.a : written == 1 ? matrices.b : matrices.c;
  const Kokkos::View<const T*, Kokkos::MemoryUnmanaged> flat(out.data(), n);  // contiguous: every element
  std::int64_t others = 0;
  Kokkos::parallel_reduce("ksync::bench::check", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                          CountOthers<T>{flat, static_cast<T>(stream::expected_value(k))}, others);
  check_mismatches(state, others, n, std::string(stream::name(k)));
  state.counters["n"] = static_cast<double>(n);
}

// Dot over rows x cols: state.range(0) x state.range(0) (square), or state.range(0) x state.range(1) (shaped).
template <class T, class Strategy>
void time_dot_pairs(benchmark::State& state, std::optional<Strategy> strategy, bool shaped) {
  const std::int64_t rows = state.range(0);
  const std::int64_t cols = shaped ? state.range(1) : rows;
  const Exec exec;
  const stream_matrices<T> matrices(exec, rows, cols);
  const Kokkos::View<T> sum("ksync::bench::sum");
  const stream::dot<Kokkos::View<T**>, T> functor{matrices.a, matrices.b};
  const std::int64_t n = rows * cols;
  time_on_instance(state, exec, 2 * n * static_cast<std::int64_t>(sizeof(T)), [&] {
    if (!strategy) {
      Kokkos::parallel_reduce("kokkos_stream2d_dot",
                              Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>(exec, {0, 0}, {rows, cols}), functor, sum);
    } else {
      ksync::parallel_reduce(exec, rows, cols, functor, sum, *strategy);
    }
  });
  T value{};
  Kokkos::deep_copy(exec, value, sum);
  exec.fence("ksync::bench::dot");
  stream::check_dot(state, static_cast<double>(value), n);
}

// Copy and Triad (one and two arrays read) and Dot, 2-D: Kokkos' MDRangePolicy, then every index strategy
// reached here, automatic among them (for Copy and Triad batched's row on host backends; through the bridge,
// the native automatic). Dot's automatic folds as the 1-D one does: by tuned, line by line, on host backends
// and, through the bridge, by the native last_block.
template <class T>
void register_pairs(std::int64_t extent) {
  constexpr auto type = stream::type_name<T>();
  for (const auto k : {stream::kernel::copy, stream::kernel::triad}) {
    add_timed(stream::row("kokkos", "2d_" + std::string(stream::name(k)), type, "md_range_policy"), extent,
              time_stream_pairs<T>, k, std::nullopt);
    for (const auto strategy : all_index_strategies) {
      const bool through_bridge = is_native(strategy);
      if (through_bridge && !has_native_bridge<Exec>) continue;
      add_timed(stream::row(through_bridge ? "bridge" : "portable", "2d_" + std::string(stream::name(k)), type,
                            to_string(strategy)),
                extent, time_stream_pairs<T>, k, strategy);
    }
  }
  add_timed(stream::row("kokkos", "2d_dot", type, "md_range_policy"), extent, time_dot_pairs<T, index_strategy>,
            std::nullopt, false);
  for (const auto strategy : ids_of_half<index_strategy>(strategy_half::portable))
    add_timed(stream::row("portable", "2d_dot", type, to_string(strategy)), extent, time_dot_pairs<T, index_strategy>,
              strategy, false);
}

// The 2-D Dot in one shape, rows x cols (rows named .../<rows>/<cols>): MDRangePolicy, then every portable index
// strategy. Narrow lines are where a walk by lines pays a split per line (docs/index-functors.md).
template <class T>
void register_dot_shape(std::int64_t rows, std::int64_t cols) {
  constexpr auto type = stream::type_name<T>();
  const auto add = [&](const std::string& name, std::optional<index_strategy> strategy) {
    benchmark::RegisterBenchmark(name, time_dot_pairs<T, index_strategy>, strategy, true)
        ->Args({rows, cols})
        ->UseManualTime();
  };
  add(stream::row("kokkos", "2d_dot_shape", type, "md_range_policy"), std::nullopt);
  for (const auto strategy : ids_of_half<index_strategy>(strategy_half::portable))
    add(stream::row("portable", "2d_dot_shape", type, to_string(strategy)), strategy);
}

// Kokkos' RangePolicy over each functor, then ksync::parallel_for with every strategy this backend reaches
// (the native ones through the bridge on Kokkos::Cuda), then the dot rows.
template <class T>
void register_type(std::int64_t n) {
  constexpr auto type = stream::type_name<T>();
  for (const auto k : stream::kernels) {
    add_timed(stream::row("kokkos", stream::name(k), type, "range_policy"), n, time_stream<T>, k, std::nullopt);
    for (const auto strategy : all_index_strategies) {
      const bool through_bridge = is_native(strategy);
      // automatic only where it is not one of the portable rows: through the bridge, it runs the native
      // automatic (thread_per_index or block_batched by n), what a call without a strategy gets there.
      if (strategy == index_strategy::automatic && !detail::automatic_for_runs_native<Exec, std::int64_t>) continue;
      if (through_bridge && !has_native_bridge<Exec>) continue;
      add_timed(stream::row(through_bridge ? "bridge" : "portable", stream::name(k), type, to_string(strategy)), n,
                time_stream<T>, k, strategy);
    }
  }
  add_timed(stream::row("kokkos", "dot", type, "range_policy"), n, time_dot<T, index_strategy>, std::nullopt);
  // automatic included: on host backends it folds as reduce_strategy::tuned, not as the kokkos row.
  for (const auto strategy : ids_of_half<index_strategy>(strategy_half::portable))
    add_timed(stream::row("portable", "dot", type, to_string(strategy)), n, time_dot<T, index_strategy>, strategy);
  for (const auto strategy : all_reduce_strategies) {
    const bool through_bridge = is_native(strategy);
    if (strategy == reduce_strategy::automatic || (through_bridge && !has_native_bridge<Exec>)) continue;
    add_timed(
        stream::row(through_bridge ? "bridge" : "portable", "dot", type, "reduce-" + std::string(to_string(strategy))),
        n, time_dot<T, reduce_strategy>, strategy);
  }
}

}  // namespace

void register_parallel_for_benchmarks(bool smoke) {
  for (const auto n : stream::sizes(smoke, runs_on_host<Exec>)) {
    register_type<float>(n);
    register_type<double>(n);
  }
  for (const auto extent : stream::square_extents(smoke, runs_on_host<Exec>)) {
    register_pairs<float>(extent);
    register_pairs<double>(extent);
  }
  for (const auto& [rows, cols] : stream::dot_shapes(smoke, runs_on_host<Exec>)) {
    register_dot_shape<float>(rows, cols);
    register_dot_shape<double>(rows, cols);
  }
}

}  // namespace ksync::bench
