// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Portable block-scope patterns: reversal through team scratch, segment reductions in every team form and
// segment size (the per-segment cost shows what a team barrier costs), and segment predicates.
#include "portable.hpp"

#include <ksync/detail/reduction.hpp>  // runs_on_host
#include <ksync/predicates.hpp>
#include <ksync/reverse.hpp>
#include <ksync/segment_reduce.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace ksync::bench {
namespace {

void time_reverse_out_of_place(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const auto in = make_input(exec, n);
  const Kokkos::View<float*> out(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "out"), n);
  time_on_instance(state, exec, 2 * n * 4, [&] { ksync::reverse(exec, in, out); });
  check_elements(state, exec, out, reversed_pattern{n}, "reversed copy");
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
  check_elements(state, exec, fresh, reversed_pattern{n}, "data reversed in place");
  state.counters["n"] = static_cast<double>(n);
}

void time_segment_reduce(benchmark::State& state, ksync::segment_form form, int segment) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const auto data = make_input(exec, n);
  const Kokkos::View<float*> out("segments", (n + segment - 1) / segment);
  time_on_instance(state, exec, n * 4,
                   [&] { ksync::segment_reduce(exec, data, segment, ksync::reduce_op::sum, form, out); });
  check_elements(state, exec, out, pattern_segment_sums{.n = n, .segment = segment}, "segment sums");
  state.counters["n"] = static_cast<double>(n);
  // Segments per second of the timed calls: its inverse is what one block (team) costs, barriers included.
  state.counters["segments_per_second"] =
      benchmark::Counter(static_cast<double>(out.extent(0)) * state.counters["calls_per_sample"].value,
                         benchmark::Counter::kIsIterationInvariantRate);
}

void time_segment_predicates(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const Kokkos::View<std::int32_t*> flags("flags", n);
  Kokkos::deep_copy(exec, flags, 1);
  const Kokkos::View<ksync::predicate_summary*> out("summaries", (n + 255) / 256);
  time_on_instance(state, exec, n * 4, [&] { ksync::segment_predicates(exec, flags, 256, out); });
  check_elements(state, exec, out, all_true_summaries{.n = n, .segment = 256}, "segment summaries");
  state.counters["n"] = static_cast<double>(n);
}

}  // namespace

void register_block_benchmarks(bool smoke) {
  for (const auto n : block_sizes(smoke)) {
    if (!in_reduce_sweep(n, smoke, ksync::detail::runs_on_host<Exec>))
      add_timed("portable/device_copy/float", n, device_copy, timing::throughput);
    add_timed("portable/reverse/float", n, time_reverse_out_of_place);
    add_timed("portable/reverse_in_place/float", n, time_reverse_in_place);
    for (const auto form : ksync::all_segment_forms) {
      if (ksync::is_native(form)) continue;  // the native suite times tree and shuffle on their own
      for (const int segment : {32, 128, 256, 1024}) {
        const std::string name =
            "portable/segment_reduce/" + std::string(to_string(form)) + "/" + std::to_string(segment) + "/float";
        add_timed(name, n, time_segment_reduce, form, segment);
      }
    }
    add_timed("portable/segment_predicates/256/int32", n, time_segment_predicates);
  }
}

}  // namespace ksync::bench
