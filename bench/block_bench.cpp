// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Portable block-scope patterns: reversal through team scratch, segment reductions in every team form and
// segment size (the per-segment cost shows what a team barrier costs), and segment predicates.
#include "portable.hpp"

#include <ksync/detail/fold.hpp>  // runs_on_host
#include <ksync/predicates.hpp>
#include <ksync/reverse.hpp>
#include <ksync/segment_reduce.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace {

using ksync::bench::Exec;
using ksync::bench::make_input;
using ksync::bench::time_on_instance;

void time_reverse_out_of_place(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const auto in = make_input(exec, n);
  const Kokkos::View<float*> out(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::bench::out"), n);
  time_on_instance(state, exec, 2 * n * 4, [&] { ksync::reverse(exec, in, out); });
  ksync::bench::check_elements(state, exec, out, ksync::bench::reversed_pattern{n}, "reversed copy");
  state.counters["n"] = static_cast<double>(n);
}

void time_reverse_in_place(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const auto data = make_input(exec, n);
  time_on_instance(state, exec, 2 * n * 4, [&] { ksync::reverse(exec, data); });
  // The timed calls reversed the data an unknown number of times: check one call on fresh data.
  const auto fresh = make_input(exec, n);
  ksync::reverse(exec, fresh);
  ksync::bench::check_elements(state, exec, fresh, ksync::bench::reversed_pattern{n}, "data reversed in place");
  state.counters["n"] = static_cast<double>(n);
}

void time_segment_reduce(benchmark::State& state, ksync::team_reduce_form form, int segment) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const auto data = make_input(exec, n);
  const Kokkos::View<float*> out("ksync::bench::segments", (n + segment - 1) / segment);
  time_on_instance(state, exec, n * 4,
                   [&] { ksync::segment_reduce(exec, data, segment, ksync::reduce_op::sum, form, out); });
  ksync::bench::check_elements(state, exec, out, ksync::bench::pattern_segment_sums{.n = n, .segment = segment},
                               "segment sums");
  state.counters["n"] = static_cast<double>(n);
  // Segments per second of the timed calls: its inverse is what one block (team) costs, barriers included.
  state.counters["segments_per_second"] =
      benchmark::Counter(static_cast<double>(out.extent(0)) * state.counters["calls_per_sample"].value,
                         benchmark::Counter::kIsIterationInvariantRate);
}

void time_segment_predicates(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const Kokkos::View<std::int32_t*> flags("ksync::bench::flags", n);
  Kokkos::deep_copy(exec, flags, 1);
  const Kokkos::View<ksync::predicate_summary*> out("ksync::bench::summaries", (n + 255) / 256);
  time_on_instance(state, exec, n * 4, [&] { ksync::segment_predicates(exec, flags, 256, out); });
  ksync::bench::check_elements(state, exec, out, ksync::bench::all_true_summaries{.n = n, .segment = 256},
                               "segment summaries");
  state.counters["n"] = static_cast<double>(n);
}

}  // namespace

void ksync::bench::register_block_benchmarks(bool smoke) {
  constexpr std::array<ksync::team_reduce_form, 4> forms{
      ksync::team_reduce_form::team_reduce, ksync::team_reduce_form::team_thread_range,
      ksync::team_reduce_form::team_vector_range, ksync::team_reduce_form::thread_vector_range};
  for (const auto n : block_sizes(smoke)) {
    if (!ksync::bench::in_reduce_sweep(n, smoke, ksync::detail::runs_on_host<Exec>))
      benchmark::RegisterBenchmark("portable/device_copy/float", device_copy, ksync::bench::timing::throughput)
          ->Arg(n)
          ->UseManualTime();
    benchmark::RegisterBenchmark("portable/reverse/float", time_reverse_out_of_place)->Arg(n)->UseManualTime();
    benchmark::RegisterBenchmark("portable/reverse_in_place/float", time_reverse_in_place)->Arg(n)->UseManualTime();
    for (const auto form : forms) {
      for (const int segment : {32, 128, 256, 1024}) {
        const std::string name =
            "portable/segment_reduce/" + std::string(to_string(form)) + "/" + std::to_string(segment) + "/float";
        benchmark::RegisterBenchmark(name, time_segment_reduce, form, segment)->Arg(n)->UseManualTime();
      }
    }
    benchmark::RegisterBenchmark("portable/segment_predicates/256/int32", time_segment_predicates)
        ->Arg(n)
        ->UseManualTime();
  }
}
