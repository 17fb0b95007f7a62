// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Native block-scope patterns: reversal through shared memory, segment reductions in both block forms for
// every compiled block size (the per-segment cost shows what the block's barriers cost), and segment
// predicates through __syncthreads_count/_and/_or.
#include "native.cuh"

#include <ksync/cuda/device/predicates.hpp>
#include <ksync/cuda/device/reverse.hpp>
#include <ksync/cuda/device/segment_reduce.hpp>

#include <string>
#include <vector>

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

void register_block_benchmarks(bool smoke) {
  for (const auto n : block_sizes(smoke)) {
    if (!in_reduce_sweep(n, smoke)) add_timed("native/device_copy/float", n, device_copy, timing::throughput);
    add_timed("native/reverse/float", n, time_reverse_out_of_place);
    add_timed("native/reverse_in_place/float", n, time_reverse_in_place);
    for (const auto form : ksync::ids_of_half<ksync::segment_form>(ksync::strategy_half::native)) {
      for (const int segment : ksync::cuda::segment_reduce_sizes) {
        const std::string name =
            "native/segment_reduce/" + std::string(ksync::to_string(form)) + "/" + std::to_string(segment) + "/float";
        add_timed(name, n, time_segment_reduce, form, segment);
      }
    }
    add_timed("native/segment_predicates/256/int32", n, time_segment_predicates);
  }
}

}  // namespace ksync::bench
