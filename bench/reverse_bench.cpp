// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::reverse (portable): out of place and in place through team scratch, beside the device copy of the
// same bytes (its ceiling) where the reduction sweep does not already time one.
#include "portable.hpp"

#include <ksync/backend.hpp>  // runs_on_host
#include <ksync/reverse.hpp>

#include <cstdint>

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

}  // namespace

void register_reverse_benchmarks(bool smoke) {
  for (const auto n : block_sizes(smoke)) {
    if (!in_reduce_sweep(n, smoke, ksync::runs_on_host<Exec>))
      add_timed("portable/device_copy/float", n, device_copy, timing::throughput);
    add_timed("portable/reverse/float", n, time_reverse_out_of_place);
    add_timed("portable/reverse_in_place/float", n, time_reverse_in_place);
  }
}

}  // namespace ksync::bench
