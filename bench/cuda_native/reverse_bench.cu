// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::reverse (native): out of place and in place through shared memory, beside the device copy of
// the same bytes (its ceiling) where the reduction sweep does not already time one.
#include "native.cuh"

#include <ksync/cuda/device/reverse.hpp>

#include <cstdint>

namespace ksync::bench {
namespace {

using ksync::cuda::device_buffer;

void time_reverse_out_of_place(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const auto in = make_input(n);
  device_buffer<float> out(static_cast<std::size_t>(n));
  time_on_stream(state, cudaStreamPerThread, 2 * n * 4, [&] {
    ksync::cuda::reverse(cudaStreamPerThread, in.data(), out.data(), static_cast<std::size_t>(n));
  });
  check_elements(state, out.data(), n, reversed_pattern{n}, "reversed copy");
  state.counters["n"] = static_cast<double>(n);
}

void time_reverse_in_place(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  auto data = make_input(n);
  time_on_stream(state, cudaStreamPerThread, 2 * n * 4,
                 [&] { ksync::cuda::reverse(cudaStreamPerThread, data.data(), static_cast<std::size_t>(n)); });
  // The timed calls reversed the data an unknown number of times: check one call on fresh data.
  auto fresh = make_input(n);
  ksync::cuda::reverse(cudaStreamPerThread, fresh.data(), static_cast<std::size_t>(n));
  check_elements(state, fresh.data(), n, reversed_pattern{n}, "data reversed in place");
  state.counters["n"] = static_cast<double>(n);
}

}  // namespace

void register_reverse_benchmarks(bool smoke) {
  for (const auto n : block_sizes(smoke)) {
    if (!in_reduce_sweep(n, smoke)) add_timed("native/device_copy/float", n, device_copy, timing::throughput);
    add_timed("native/reverse/float", n, time_reverse_out_of_place);
    add_timed("native/reverse_in_place/float", n, time_reverse_in_place);
  }
}

}  // namespace ksync::bench
