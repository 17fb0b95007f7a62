// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::segment_reduce (native): both block forms for every compiled block size (the per-segment cost
// shows what the block's barriers cost).
#include "native.cuh"

#include <ksync/cuda/device/segment_reduce.hpp>

#include <cstdint>
#include <string>

namespace ksync::bench {
namespace {

using ksync::cuda::device_buffer;

void time_segment_reduce(benchmark::State& state, ksync::segment_form form, int segment) {
  const std::int64_t n = state.range(0);
  const auto data = make_input(n);
  const std::int64_t segments = (n + segment - 1) / segment;
  device_buffer<float> out(static_cast<std::size_t>(segments));
  time_on_stream(state, cudaStreamPerThread, n * 4, [&] {
    ksync::cuda::segment_reduce(cudaStreamPerThread, data.data(), static_cast<std::size_t>(n), segment,
                                ksync::reduce_op::sum, form, out.data());
  });
  check_elements(state, out.data(), segments, pattern_segment_sums{.n = n, .segment = segment}, "segment sums");
  state.counters["n"] = static_cast<double>(n);
  // Segments per second of the timed calls: its inverse is what one block (team) costs, barriers included.
  state.counters["segments_per_second"] =
      benchmark::Counter(static_cast<double>(segments) * state.counters["calls_per_sample"].value,
                         benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

void register_segment_reduce_benchmarks(bool smoke) {
  for (const auto n : block_sizes(smoke)) {
    for (const auto form : ksync::ids_of_half<ksync::segment_form>(ksync::strategy_half::native)) {
      for (const int segment : ksync::cuda::segment_reduce_sizes) {
        const std::string name =
            "native/segment_reduce/" + std::string(ksync::to_string(form)) + "/" + std::to_string(segment) + "/float";
        add_timed(name, n, time_segment_reduce, form, segment);
      }
    }
  }
}

}  // namespace ksync::bench
