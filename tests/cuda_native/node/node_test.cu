// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Several GPUs of one node: device_group (peer and staged copies), the reduction across GPUs by both combines
// and the pipeline split across GPUs, against host references. Tests that need two GPUs skip (reported as
// skipped) on machines with fewer; the argument checks run anywhere, GPU or not.
#include "../../support/errors.hpp"
#include "../../support/functors.hpp"
#include "../../support/gpu.hpp"

#include <ksync/cuda/host_memory.hpp>
#include <ksync/cuda/node/device_group.hpp>
#include <ksync/cuda/node/pipeline.cuh>
#include <ksync/cuda/node/reduce.hpp>
#include <ksync/cuda/runtime.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <vector>

namespace {

using ksync::reduce_op;
using ksync::cuda::node::combine_strategy;
using ksync::cuda::node::copy_path;
using ksync::cuda::node::device_group;
using ksync::cuda::node::distributed_buffer;
using ksync::cuda::node::peer_policy;

TEST(DeviceGroupArguments, FewerGpusThanRequestedIsAClearError) {
  const int visible = ksync::cuda::visible_device_count();
  const std::string message = ksync::test::invalid_argument_message([&] { (void)device_group::first(visible + 1); });
  EXPECT_NE(message.find("count = " + std::to_string(visible + 1)), std::string::npos) << message;
  EXPECT_NE(message.find(std::to_string(visible) + " visible"), std::string::npos) << message;
}

TEST(DeviceGroupArguments, BadDeviceListsAreRefused) {
  const int visible = ksync::cuda::visible_device_count();
  EXPECT_NE(ksync::test::invalid_argument_message([] { (void)device_group(std::vector<int>{}); }).find("empty"),
            std::string::npos);
  const std::string outside = ksync::test::invalid_argument_message([&] { (void)device_group({visible}); });
  EXPECT_NE(outside.find("devices[0] = " + std::to_string(visible)), std::string::npos) << outside;
  if (visible >= 1) {
    const std::string twice = ksync::test::invalid_argument_message([] { (void)device_group({0, 0}); });
    EXPECT_NE(twice.find("more than once"), std::string::npos) << twice;
  }
}

TEST(NodeGpu, CopiesBetweenGpusByBothPathsArriveWhole) {
  KSYNC_REQUIRE_GPUS(2);
  for (const auto policy : {peer_policy::automatic, peer_policy::staged}) {
    device_group group = device_group::first(2, policy);
    if (policy == peer_policy::staged) {
      EXPECT_EQ(group.path(0, 1), copy_path::staged_through_host);
    }
    // 9 MiB + 12 bytes: more than two staging chunks, and a short last one.
    const std::size_t n = (std::size_t{9} << 18) + 3;
    std::vector<float> host(n);
    std::iota(host.begin(), host.end(), 0.5f);
    distributed_buffer<float> a(group, 2 * n);  // part 0 on GPU 0, part 1 on GPU 1, n elements each
    std::vector<float> both(host);
    both.insert(both.end(), n, -1.0f);
    a.scatter_from(both);
    (void)group.copy(1, a.part(1), 0, a.part(0), n * sizeof(float));  // GPU 0 -> GPU 1
    group.synchronize();
    std::vector<float> back(2 * n);
    a.gather_to(back);
    EXPECT_TRUE(std::equal(host.begin(), host.end(), back.begin() + static_cast<std::ptrdiff_t>(n)))
        << "path " << ksync::cuda::node::to_string(group.path(0, 1));
  }
}

TEST(NodeGpu, AnExchangeBothWaysInOneCallSwapsTheParts) {
  KSYNC_REQUIRE_GPUS(2);
  for (const auto policy : {peer_policy::automatic, peer_policy::staged}) {
    device_group group = device_group::first(2, policy);
    const std::size_t n = (std::size_t{3} << 20) + 5;  // each way: three chunks of 4 MiB and a short one
    std::vector<std::int32_t> host(2 * n);
    std::iota(host.begin(), host.end(), 1);
    distributed_buffer<std::int32_t> source(group, 2 * n);
    distributed_buffer<std::int32_t> target(group, 2 * n);
    source.scatter_from(host);
    const std::vector<ksync::cuda::node::copy_request> exchange{
        {.to_rank = 1, .dst = target.part(1), .from_rank = 0, .src = source.part(0), .bytes = n * 4},
        {.to_rank = 0, .dst = target.part(0), .from_rank = 1, .src = source.part(1), .bytes = n * 4}};
    group.copy(exchange);
    group.synchronize();
    std::vector<std::int32_t> swapped(2 * n);
    target.gather_to(swapped);
    std::vector<std::int32_t> expected(host.begin() + static_cast<std::ptrdiff_t>(n), host.end());
    expected.insert(expected.end(), host.begin(), host.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_EQ(swapped, expected) << "path " << ksync::cuda::node::to_string(group.path(0, 1));
  }
}

// Spins for about `delay_cycles` SM clock cycles, then writes data[i] = first + i: work that is still
// running when the host has long moved on, so only stream order keeps a copy from overtaking it.
__global__ void write_after_delay(float* data, std::size_t n, float first, long long delay_cycles) {
  const long long start = clock64();
  while (clock64() - start < delay_cycles) {
  }
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    data[i] = first + static_cast<float>(i);
}

TEST(NodeGpu, CopiesWaitForEarlierWorkOnBothGpusAndLaterWorkWaitsForThem) {
  KSYNC_REQUIRE_GPUS(2);
  constexpr long long about_two_ms = 4'000'000;
  for (const auto policy : {peer_policy::automatic, peer_policy::staged}) {
    device_group group = device_group::first(2, policy);
    const std::size_t n = (std::size_t{3} << 20) + 5;  // staged: three 4 MiB chunks and a short one
    distributed_buffer<float> a(group, 2 * n);
    const auto launch = [&](int rank, float* data, float first, long long delay) {
      const ksync::cuda::device_guard on(group.device(rank));
      write_after_delay<<<264, 256, 0, group.stream(rank)>>>(data, n, first, delay);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    };
    launch(1, a.part(1), -7.0f, about_two_ms);  // the destination's earlier work: the copy must land after it
    launch(0, a.part(0), 0.5f, about_two_ms);   // the source's earlier work: the copy must read what it wrote
    (void)group.copy(1, a.part(1), 0, a.part(0), n * sizeof(float));
    launch(0, a.part(0), 1000.5f, 0);  // later work on the source: must not change what the copy read
    group.synchronize();
    std::vector<float> back(2 * n);
    a.gather_to(back);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
      wrong += back[n + i] != 0.5f + static_cast<float>(i) ? 1 : 0;
    EXPECT_EQ(wrong, 0u) << "path " << ksync::cuda::node::to_string(group.path(0, 1));
  }
}

template <class T>
T host_fold(const std::vector<T>& values, reduce_op op) {
  T result = op == reduce_op::sum ? T{0} : values.front();
  for (const T v : values)
    result = op == reduce_op::sum ? result + v : op == reduce_op::min ? std::min(result, v) : std::max(result, v);
  return result;
}

TEST(NodeGpu, ReduceAcrossGpusMatchesTheReferenceForEveryCombine) {
  KSYNC_REQUIRE_GPUS(1);
  const int gpus = std::min(2, ksync::cuda::visible_device_count());
  for (const int count : {1, gpus}) {
    for (const auto policy : {peer_policy::automatic, peer_policy::staged}) {
      device_group group = device_group::first(count, policy);
      for (const std::size_t n : {std::size_t{1}, std::size_t{1001}, std::size_t{3} << 20}) {
        std::vector<std::int64_t> host(n);
        for (std::size_t i = 0; i < n; ++i)
          host[i] = static_cast<std::int64_t>((i * 7919) % 100'003) - 50'000;
        distributed_buffer<std::int64_t> data(group, n);
        data.scatter_from(host);
        for (const auto combine : ksync::implementations_of_half<combine_strategy>(ksync::strategy_half::native)) {
          if (combine == combine_strategy::nccl && !ksync::cuda::node::has_nccl()) continue;
          for (const auto op : {reduce_op::sum, reduce_op::min, reduce_op::max}) {
            SCOPED_TRACE(std::to_string(count) + " GPU(s), n = " + std::to_string(n) + ", " +
                         std::string(ksync::to_string(combine)) + ", " + std::string(ksync::to_string(op)));
            EXPECT_EQ(ksync::cuda::node::reduce(group, data, op, combine), host_fold(host, op));
          }
        }
      }
    }
  }
}

TEST(NodeGpu, AsynchronousReduceLeavesTheValueOnEveryGpu) {
  KSYNC_REQUIRE_GPUS(2);
  device_group group = device_group::first(2);
  const std::size_t n = 1 << 22;
  std::vector<double> host(n, 0.25);
  distributed_buffer<double> data(group, n);
  data.scatter_from(host);
  distributed_buffer<double> results(group, 2);  // one value on each GPU
  for (const auto combine : ksync::implementations_of_half<combine_strategy>(ksync::strategy_half::native)) {
    if (combine == combine_strategy::nccl && !ksync::cuda::node::has_nccl()) continue;
    const std::vector<double*> targets{results.part(0), results.part(1)};
    ksync::cuda::node::reduce(group, data, reduce_op::sum, combine, std::span<double* const>(targets));
    group.synchronize();
    std::vector<double> values(2);
    results.gather_to(values);
    EXPECT_EQ(values, std::vector<double>(2, 0.25 * n)) << ksync::to_string(combine);
  }
}

TEST(NodeGpu, PipelineSplitAcrossGpusGivesTheReference) {
  KSYNC_REQUIRE_GPUS(1);
  const int gpus = std::min(2, ksync::cuda::visible_device_count());
  const device_group group = device_group::first(gpus);
  const std::size_t n = (std::size_t{5} << 20) + 7;
  ksync::cuda::pinned_buffer<float> in(n);
  ksync::cuda::pinned_buffer<float> out(n);
  for (std::size_t i = 0; i < n; ++i)
    in.data()[i] = static_cast<float>(i % 4096) - 7.0f;
  ksync::cuda::node::pipeline_plan<float> plan(group, n, {.chunk_elements = std::size_t{1} << 18, .streams = 4});
  for (int repeat = 0; repeat < 2; ++repeat) {  // a plan runs again
    std::fill_n(out.data(), n, -1.0f);
    const auto report = plan.run(std::span<const float>(in.span()), out.span(), ksync::test::TwiceAndOne{});
    ASSERT_EQ(report.devices.size(), static_cast<std::size_t>(gpus));
    for (const auto& device : report.devices)
      EXPECT_TRUE(device.pinned_input && device.pinned_output);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
      wrong += out.data()[i] != ksync::test::TwiceAndOne{}(in.data()[i]) ? 1 : 0;
    EXPECT_EQ(wrong, 0u);
  }
}

TEST(NodeGpu, DataOrResultsOnTheWrongGpuAreRefusedBeforeAnyWork) {
  KSYNC_REQUIRE_GPUS(2);
  device_group group({0, 1});
  const device_group reversed({1, 0});
  const distributed_buffer<float> data(reversed, 8);
  const std::string message =
      ksync::test::invalid_argument_message([&] { (void)ksync::cuda::node::reduce(group, data); });
  EXPECT_NE(message.find("data's part 0 is on device 1 but the group's rank 0 is device 0"), std::string::npos)
      << message;
  // A result slot on the wrong GPU: rank 0's result pointing into GPU 1's memory.
  const distributed_buffer<float> mine(group, 8);
  const std::vector<float*> results{mine.part(1), nullptr};
  const std::string wrong_result = ksync::test::invalid_argument_message([&] {
    ksync::cuda::node::reduce(group, mine, reduce_op::sum, combine_strategy::peer_gather,
                              std::span<float* const>(results));
  });
  EXPECT_NE(wrong_result.find("results[0]"), std::string::npos) << wrong_result;
  EXPECT_NE(wrong_result.find("(device 0)"), std::string::npos) << wrong_result;
}

TEST(NodeGpu, MismatchedArgumentsAreClearErrors) {
  KSYNC_REQUIRE_GPUS(1);
  device_group group = device_group::first(1);
  distributed_buffer<float> data(group, 10);
  const std::vector<float> wrong(11);
  const std::string scatter = ksync::test::invalid_argument_message([&] { data.scatter_from(wrong); });
  EXPECT_NE(scatter.find("host.size() = 11"), std::string::npos) << scatter;
  const std::vector<float*> results(2, nullptr);
  const std::string reduce = ksync::test::invalid_argument_message([&] {
    ksync::cuda::node::reduce(group, data, reduce_op::sum, combine_strategy::peer_gather,
                              std::span<float* const>(results));
  });
  EXPECT_NE(reduce.find("results.size() = 2"), std::string::npos) << reduce;
  EXPECT_TRUE(ksync::test::refuses(
      [&] { (void)ksync::cuda::node::reduce(group, data, reduce_op::sum, static_cast<combine_strategy>(2)); },
      "combine = 2 is not a combine_strategy"));
  const std::string rank = ksync::test::invalid_argument_message([&] { (void)group.stream(1); });
  EXPECT_NE(rank.find("rank = 1"), std::string::npos) << rank;
}

}  // namespace
