// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Several GPUs of one node (docs/multi-gpu.md):
//   native/node/peer_copy/<path>/<direction>   copies between GPU 0 and GPU 1, peer to peer and staged through
//                                              pinned host memory, one way each and both ways at once;
//   native/node/reduce/<combine>/gpus:<G>      the float sum of n elements spread over G GPUs: ksync's peer
//                                              gather against an NCCL all-reduce of the partials (G = 1 gives
//                                              the scaling baseline);
//   native/node/pipeline/gpus:<G>              the copy/compute pipeline over G GPUs, a share each.
// Each copy and reduce row is timed with events on GPU 0's stream around a fork to every GPU's stream and a
// join back, so a row's time covers every GPU's part. Rows that need more GPUs than are visible are not
// registered.
#include "../common.hpp"
#include "native.cuh"

#include <ksync/cuda/host_memory.hpp>
#include <ksync/cuda/node/device_group.hpp>
#include <ksync/cuda/node/pipeline.cuh>
#include <ksync/cuda/node/reduce.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace {

using ksync::cuda::node::combine_strategy;
using ksync::cuda::node::device_group;
using ksync::cuda::node::distributed_buffer;
using ksync::cuda::node::peer_policy;

enum class direction { zero_to_one, one_to_zero, both };

constexpr const char* to_name(direction d) {
  return d == direction::zero_to_one ? "0to1" : d == direction::one_to_zero ? "1to0" : "both";
}

void time_peer_copy(benchmark::State& state, peer_policy policy, direction way) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  device_group group = device_group::first(2, policy);
  const std::size_t words = bytes / sizeof(std::int32_t);     // every size here is a multiple of 4
  distributed_buffer<std::int32_t> source(group, 2 * words);  // `bytes` on each GPU
  distributed_buffer<std::int32_t> target(group, 2 * words);
  std::vector<ksync::cuda::node::copy_request> copies;  // both ways: one call, so the two directions overlap
  if (way != direction::one_to_zero)
    copies.push_back({.to_rank = 1, .dst = target.part(1), .from_rank = 0, .src = source.part(0), .bytes = bytes});
  if (way != direction::zero_to_one)
    copies.push_back({.to_rank = 0, .dst = target.part(0), .from_rank = 1, .src = source.part(1), .bytes = bytes});
  const auto run = [&] {
    group.fork_from(0);
    group.copy(copies);
    group.join_into(0);
  };
  const auto moved = static_cast<std::int64_t>(way == direction::both ? 2 * bytes : bytes);
  ksync::bench::time_on_stream(state, group.stream(0), moved, run);
  state.counters["bytes"] = static_cast<double>(bytes);
  state.SetLabel(std::string(ksync::cuda::node::to_string(group.path(0, 1))));
}

void time_node_reduce(benchmark::State& state, combine_strategy combine, int gpus) {
  const auto n = static_cast<std::size_t>(state.range(0));
  device_group group = device_group::first(gpus);
  distributed_buffer<float> data(group, n);
  distributed_buffer<float> results(group, static_cast<std::size_t>(gpus));  // one value per GPU
  std::vector<float*> targets;
  double expected = 0;  // each part holds the bench pattern, i % 8 from its own start
  for (int r = 0; r < gpus; ++r) {
    const ksync::cuda::device_guard on(group.device(r));
    const auto part = static_cast<std::int64_t>(data.part_size(r));
    ksync::bench::fill_pattern<<<1024, 256, 0, group.stream(r)>>>(data.part(r), part);
    KSYNC_CUDA_CHECK_LAUNCH("fill_pattern");
    expected += ksync::bench::pattern_sum(part);
    targets.push_back(results.part(r));
  }
  group.synchronize();
  const auto run = [&] {
    group.fork_from(0);
    ksync::cuda::node::reduce(group, data, ksync::reduce_op::sum, combine, std::span<float* const>(targets));
    group.join_into(0);
  };
  ksync::bench::time_on_stream(state, group.stream(0), static_cast<std::int64_t>(n * sizeof(float)), run);
  std::vector<float> values(static_cast<std::size_t>(gpus));
  results.gather_to(values);
  for (const float v : values)  // float sums of 2^30 values round: ksync::bench's 1e-3 relative
    if (std::fabs(v - expected) > 1e-3 * expected)
      ksync::bench::check_failed(state,
                                 "a GPU's sum is " + std::to_string(v) + ", expected " + std::to_string(expected));
  state.counters["n"] = static_cast<double>(n);
  state.counters["gpus"] = gpus;
}

struct scale_by_two {
  __host__ __device__ float operator()(float x) const { return 2.0f * x; }
};

void time_node_pipeline(benchmark::State& state, int gpus, bool smoke) {
  const std::size_t n = smoke ? std::size_t{1} << 16 : std::size_t{1} << 26;  // 256 MiB each way
  const device_group group = device_group::first(gpus);
  ksync::cuda::pinned_buffer<float> in(n);
  ksync::cuda::pinned_buffer<float> out(n);
  for (std::size_t i = 0; i < n; ++i)
    in.data()[i] = static_cast<float>(i % 1024);
  const std::size_t chunk = smoke ? std::size_t{1} << 12 : std::size_t{1} << 20;  // 4 MiB
  ksync::cuda::node::pipeline_plan<float> plan(group, n, {.chunk_elements = chunk, .streams = 4});
  const std::span<const float> input(in.span());
  (void)plan.run(input, out.span(), scale_by_two{});  // warm-up: module loading on every GPU, first touch
  for (auto _ : state)
    state.SetIterationTime(plan.run(input, out.span(), scale_by_two{}).milliseconds * 1e-3);
  ksync::bench::check_twice(state, input, out.span());
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(2 * n * sizeof(float)));
  state.counters["n"] = static_cast<double>(n);
  state.counters["gpus"] = gpus;
}

}  // namespace

void ksync::bench::register_node_benchmarks(bool smoke) {
  const int visible = ksync::cuda::visible_device_count();
  const std::vector<int> gpu_counts = visible >= 2 ? std::vector<int>{1, 2} : std::vector<int>{1};
  if (visible >= 2) {
    const std::vector<std::int64_t> sizes =
        smoke ? std::vector<std::int64_t>{8, 1 << 16}
              : std::vector<std::int64_t>{8, 1 << 16, 1 << 22, std::int64_t{1} << 28, std::int64_t{1} << 30};
    for (const auto policy : {peer_policy::automatic, peer_policy::staged}) {
      for (const auto way : {direction::zero_to_one, direction::one_to_zero, direction::both}) {
        const std::string path = policy == peer_policy::automatic ? "auto" : "staged";
        auto* rows = benchmark::RegisterBenchmark("native/node/peer_copy/" + path + "/" + to_name(way), time_peer_copy,
                                                  policy, way);
        for (const auto bytes : sizes)
          rows->Arg(bytes);
        rows->UseManualTime();
      }
    }
  }
  const std::vector<std::int64_t> reduce_sizes =
      smoke ? std::vector<std::int64_t>{1 << 12}
            : std::vector<std::int64_t>{1 << 20, 1 << 24, std::int64_t{1} << 28, std::int64_t{1} << 30};
  for (const auto combine : ksync::implementations_of_half<combine_strategy>(ksync::strategy_half::native)) {
    if (combine == combine_strategy::nccl && !ksync::cuda::node::has_nccl()) continue;
    for (const int gpus : gpu_counts) {
      auto* rows = benchmark::RegisterBenchmark(
          "native/node/reduce/" + std::string(ksync::to_string(combine)) + "/gpus:" + std::to_string(gpus),
          time_node_reduce, combine, gpus);
      for (const auto n : reduce_sizes)
        rows->Arg(n);
      rows->UseManualTime();
    }
  }
  for (const int gpus : gpu_counts)
    benchmark::RegisterBenchmark("native/node/pipeline/gpus:" + std::to_string(gpus), time_node_pipeline, gpus, smoke)
        ->UseManualTime();
}
