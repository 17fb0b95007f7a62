// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::segment_predicates (native): count, all and any of segments of 256 flags through
// __syncthreads_count/_and/_or.
#include "native.cuh"

#include <ksync/cuda/device/predicates.hpp>

#include <cstdint>
#include <vector>

namespace ksync::bench {
namespace {

using ksync::cuda::device_buffer;

void time_segment_predicates(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const device_buffer<std::int32_t> flags(std::vector<std::int32_t>(static_cast<std::size_t>(n), 1));
  device_buffer<ksync::predicate_summary> out(static_cast<std::size_t>((n + 255) / 256));
  time_on_stream(state, cudaStreamPerThread, n * 4, [&] {
    ksync::cuda::segment_predicates(cudaStreamPerThread, flags.data(), static_cast<std::size_t>(n), 256, out.data());
  });
  check_elements(state, out.data(), (n + 255) / 256, all_true_summaries{.n = n, .segment = 256}, "segment summaries");
  state.counters["n"] = static_cast<double>(n);
}

}  // namespace

void register_predicates_benchmarks(bool smoke) {
  for (const auto n : block_sizes(smoke))
    add_timed("native/segment_predicates/256/int32", n, time_segment_predicates);
}

}  // namespace ksync::bench
