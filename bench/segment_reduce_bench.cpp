// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::segment_reduce (portable): every team form at every segment size (the per-segment cost shows what
// a team barrier costs).
#include "portable.hpp"

#include <ksync/segment_reduce.hpp>

#include <cstdint>
#include <string>

namespace ksync::bench {
namespace {

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

}  // namespace

void register_segment_reduce_benchmarks(bool smoke) {
  for (const auto n : block_sizes(smoke)) {
    for (const auto form : ksync::all_segment_forms) {
      if (ksync::is_native(form)) continue;  // the native suite times tree and shuffle on their own
      for (const int segment : {32, 128, 256, 1024}) {
        const std::string name =
            "portable/segment_reduce/" + std::string(to_string(form)) + "/" + std::to_string(segment) + "/float";
        add_timed(name, n, time_segment_reduce, form, segment);
      }
    }
  }
}

}  // namespace ksync::bench
