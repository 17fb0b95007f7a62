// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::segment_predicates (portable): count, all and any of segments of 256 flags.
#include "portable.hpp"

#include <ksync/predicates.hpp>

#include <cstdint>

namespace ksync::bench {
namespace {

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

void register_predicates_benchmarks(bool smoke) {
  for (const auto n : block_sizes(smoke))
    add_timed("portable/segment_predicates/256/int32", n, time_segment_predicates);
}

}  // namespace ksync::bench
