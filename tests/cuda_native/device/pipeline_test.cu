// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::pipeline and the owning stream, event and pinned-memory types: results against the host
// reference for every stream count, both issue orders, tail chunks, pinned and pageable memory; the
// argument checks (before any CUDA call, so they run without a GPU); a consumer's exception and a failed
// CUDA call at every call a run makes, which leak nothing.
#include "../../support/errors.hpp"
#include "../../support/faults.hpp"
#include "../../support/functors.hpp"
#include "../../support/gpu.hpp"

#include <ksync/cuda/device/pipeline.cuh>
#include <ksync/cuda/device/transform.cuh>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/global_timer.cuh>
#include <ksync/cuda/grid/stride.cuh>
#include <ksync/cuda/host_memory.hpp>
#include <ksync/cuda/stream.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using ksync::issue_order;

using ksync::test::TwiceAndOne;

std::vector<float> expected_for(const std::vector<float>& in, std::size_t n) {
  std::vector<float> out(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n));
  for (auto& x : out)
    x = TwiceAndOne{}(x);
  return out;
}

TEST(PipelineGpu, EveryStreamCountOrderAndTailGivesTheReference) {
  KSYNC_REQUIRE_GPU();
  for (const std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{1'000'003}}) {
    std::vector<float> in(n);
    for (std::size_t i = 0; i < n; ++i)
      in[i] = static_cast<float>(i % 1024) - 300.0f;
    const auto expected = expected_for(in, n);
    for (const int streams : {1, 2, 4, 8}) {
      for (const std::size_t chunk : {std::size_t{1}, std::size_t{4099}, std::size_t{1} << 18, n}) {
        if (chunk > n || (chunk == 1 && n > 1000)) continue;
        for (const auto order : {issue_order::depth_first, issue_order::breadth_first}) {
          SCOPED_TRACE("n = " + std::to_string(n) + ", " + std::to_string(streams) + " streams, chunk " +
                       std::to_string(chunk) + ", " + std::string(ksync::to_string(order)));
          std::vector<float> out(n, -1.0f);
          const auto report = ksync::cuda::pipeline(
              std::span<const float>(in), std::span<float>(out), n, TwiceAndOne{},
              {.chunk_elements = chunk, .streams = streams, .order = order, .record_timeline = true});
          EXPECT_EQ(out, expected);
          EXPECT_FALSE(report.pinned_input);  // std::vector: pageable
          EXPECT_EQ(report.chunks, (n + chunk - 1) / chunk);
          ASSERT_EQ(report.timeline.size(), report.chunks);
          for (const auto& step : report.timeline) {
            EXPECT_LE(step.copy_in_begin, step.copy_in_end);
            EXPECT_LE(step.copy_in_end, step.kernel_end);
            EXPECT_LE(step.kernel_end, step.copy_out_end);
            EXPECT_EQ(step.stream, static_cast<int>(step.chunk % static_cast<std::size_t>(streams)));
          }
        }
      }
    }
  }
}

TEST(PipelineGpu, APlanRunsAgainOnNewDataAndTimesEveryRun) {
  KSYNC_REQUIRE_GPU();
  const std::size_t n = 100'003;
  const ksync::cuda::pinned_buffer<float> in(n);
  const ksync::cuda::pinned_buffer<float> out(n);
  ksync::cuda::pipeline_plan<float> plan(n, {.chunk_elements = 4096, .streams = 3});
  EXPECT_EQ(plan.size(), n);
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    std::vector<float> host(n);
    for (std::size_t i = 0; i < n; ++i)
      host[i] = static_cast<float>((i + static_cast<std::size_t>(run) * 7) % 999);
    std::copy(host.begin(), host.end(), in.data());
    const auto report = plan.run(std::span<const float>(in.span()), out.span(), TwiceAndOne{});
    EXPECT_TRUE(report.pinned_input);
    EXPECT_TRUE(report.pinned_output);
    EXPECT_GT(report.milliseconds, 0.0f);
    EXPECT_TRUE(report.timeline.empty());  // not asked for
    EXPECT_EQ(std::vector<float>(out.data(), out.data() + n), expected_for(host, n));
  }
}

TEST(PipelineGpu, EveryChunkIsConsumedOnceAfterItsResultsLand) {
  KSYNC_REQUIRE_GPU();
  const std::size_t n = 100'003;
  const std::size_t chunk = 4096;
  const ksync::cuda::pinned_buffer<float> in(n);
  const ksync::cuda::pinned_buffer<float> out(n);
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i)
    host[i] = static_cast<float>(i % 999);
  std::copy(host.begin(), host.end(), in.data());
  const auto expected = expected_for(host, n);
  for (const auto order : {issue_order::depth_first, issue_order::breadth_first}) {
    SCOPED_TRACE(std::string(ksync::to_string(order)));
    ksync::cuda::pipeline_plan<float> plan(n, {.chunk_elements = chunk, .streams = 4, .order = order});
    const std::size_t chunks = (n + chunk - 1) / chunk;
    // Each chunk writes only its own slots: the calls may overlap.
    std::vector<std::size_t> calls(chunks, 0);
    std::vector<std::size_t> mismatches(chunks, 0);
    const float* results = out.data();
    (void)plan.run(std::span<const float>(in.span()), out.span(), TwiceAndOne{},
                   [&](std::size_t begin, std::size_t count) {
                     const std::size_t c = begin / chunk;
                     ++calls[c];
                     for (std::size_t i = begin; i < begin + count; ++i)
                       mismatches[c] += results[i] != expected[i] ? 1 : 0;
                   });
    EXPECT_EQ(calls, std::vector<std::size_t>(chunks, 1));
    EXPECT_EQ(mismatches, std::vector<std::size_t>(chunks, 0));  // the chunk had landed when consumed
  }
}

// A pinned input of n ones and a pinned output of n: what the consumer-exception tests run on.
struct pinned_ones_and_output {
  explicit pinned_ones_and_output(std::size_t n) : in(n), out(n) { std::fill(in.data(), in.data() + n, 1.0f); }
  ksync::cuda::pinned_buffer<float> in;
  ksync::cuda::pinned_buffer<float> out;
};

TEST(PipelineGpu, AConsumerExceptionIsRethrownAfterEveryStreamIsDone) {
  KSYNC_REQUIRE_GPU();
  const std::size_t n = 50'000;
  const auto& [in, out] = pinned_ones_and_output(n);
  ksync::cuda::pipeline_plan<float> plan(n, {.chunk_elements = 1000, .streams = 2});
  std::vector<int> consumed(50, 0);
  EXPECT_THROW((void)plan.run(std::span<const float>(in.span()), out.span(), TwiceAndOne{},
                              [&](std::size_t begin, std::size_t) {
                                consumed[begin / 1000] = 1;
                                if (begin == 3000) throw std::runtime_error("chunk 3 refused");
                              }),
               std::runtime_error);
  EXPECT_EQ(std::count(consumed.begin(), consumed.end(), 1), 50);  // the other chunks still ran
  // The plan stays usable.
  const auto report = plan.run(std::span<const float>(in.span()), out.span(), TwiceAndOne{});
  EXPECT_EQ(report.chunks, 50u);
  EXPECT_EQ(out.data()[n - 1], TwiceAndOne{}(1.0f));
}

TEST(PipelineGpu, AConsumerExceptionLeavesNothingHeldOnceThePlanIsGone) {
  KSYNC_REQUIRE_GPU();
  const std::size_t n = 20'000;
  const auto& [in, out] = pinned_ones_and_output(n);
  const auto before = ksync::test::held_resources::now();
  {
    ksync::cuda::pipeline_plan<float> plan(n, {.chunk_elements = 1000, .streams = 3, .record_timeline = true});
    EXPECT_THROW((void)plan.run(std::span<const float>(in.span()), out.span(), TwiceAndOne{},
                                [](std::size_t begin, std::size_t) {
                                  if (begin == 5000) throw std::runtime_error("chunk 5 refused");
                                }),
                 std::runtime_error);
  }
  EXPECT_EQ(ksync::test::held_resources::now(), before);
}

// A CUDA call that fails in the middle of a run, at every checked call a plan's construction and run make
// (copies, kernels, events, host functions): the error names the call and its file:line, nothing is kept,
// and a plan that failed runs again to the reference.
TEST(PipelineGpu, AFailedCudaCallMidRunLeaksNothingAndThePlanRunsAgain) {
  KSYNC_REQUIRE_GPU();
  const std::size_t n = 10'000;
  const ksync::cuda::pinned_buffer<float> in(n);
  const ksync::cuda::pinned_buffer<float> out(n);
  for (std::size_t i = 0; i < n; ++i)
    in.data()[i] = static_cast<float>(i % 77);
  const std::vector<float> expected = expected_for(std::vector<float>(in.data(), in.data() + n), n);
  const ksync::pipeline_config config{.chunk_elements = 1000, .streams = 3, .record_timeline = true};
  std::vector<int> consumed(10, 0);
  const auto consume = [&](std::size_t begin, std::size_t) { ++consumed[begin / 1000]; };
  const auto run_unchecked = [&](ksync::cuda::pipeline_plan<float>& plan) {
    (void)plan.run(std::span<const float>(in.span()), out.span(), TwiceAndOne{}, consume);
  };
  const auto runs_to_the_reference = [&](ksync::cuda::pipeline_plan<float>& plan) {
    std::fill(out.data(), out.data() + n, -1.0f);
    std::fill(consumed.begin(), consumed.end(), 0);
    run_unchecked(plan);
    EXPECT_EQ(std::vector<float>(out.data(), out.data() + n), expected);
    EXPECT_EQ(std::count(consumed.begin(), consumed.end(), 1), 10);
  };
  EXPECT_GE(ksync::test::expect_every_cuda_failure_is_clean(
                [&] {
                  ksync::cuda::pipeline_plan<float> plan(n, config);
                  run_unchecked(plan);
                },
                [] {}),
            20);
  ksync::cuda::pipeline_plan<float> kept(n, config);
  run_unchecked(kept);
  EXPECT_GE(ksync::test::expect_every_cuda_failure_is_clean([&] { run_unchecked(kept); },
                                                            [&] { runs_to_the_reference(kept); }),
            20);
}

TEST(PipelineGpu, PinnedAndRegisteredHostMemoryIsReportedPinned) {
  KSYNC_REQUIRE_GPU();
  constexpr std::size_t n = 1 << 20;
  ksync::cuda::pinned_buffer<float> in(n);
  std::vector<float> registered_out(n);
  const ksync::cuda::host_registration pin(registered_out.data(), n * sizeof(float));
  for (std::size_t i = 0; i < n; ++i)
    in.data()[i] = static_cast<float>(i % 77);
  const auto report = ksync::cuda::pipeline(std::span<const float>(in.span()), std::span<float>(registered_out), n,
                                            TwiceAndOne{}, {.chunk_elements = 1 << 16, .streams = 4});
  EXPECT_TRUE(report.pinned_input);
  EXPECT_TRUE(report.pinned_output);
  EXPECT_EQ(registered_out, expected_for(std::vector<float>(in.data(), in.data() + n), n));
  EXPECT_TRUE(report.timeline.empty());
}

__global__ void write_after(float* data, std::size_t n, float value, std::uint64_t delay_ns) {
  ksync::cuda::spin_for(delay_ns);
  const auto stride = static_cast<std::size_t>(ksync::cuda::grid_stride());
  for (auto i = static_cast<std::size_t>(ksync::cuda::grid_stride_begin()); i < n; i += stride)
    data[i] = value;
}

// Two streams of different priorities: a copy on the high-priority stream, made to wait on an event of the
// low one, sees the value a 1 ms kernel wrote there, and the events' span covers that kernel.
TEST(StreamGpu, EventsOrderTwoStreamsAndTimeTheSpan) {
  KSYNC_REQUIRE_GPU();
  const auto range = ksync::cuda::stream_priority_range();
  EXPECT_LE(range.greatest, range.lowest);
  ksync::cuda::stream high(range.greatest);
  const ksync::cuda::stream low(range.lowest);
  const ksync::cuda::event start;
  const ksync::cuda::event done;
  ksync::cuda::device_buffer<float> value(std::vector<float>{0.0f});
  const ksync::cuda::pinned_buffer<float> seen(1);
  seen.data()[0] = -1.0f;
  start.record(low.get());
  write_after<<<1, 32, 0, low.get()>>>(value.data(), 1, 7.0f, 1'000'000);
  KSYNC_CUDA_CHECK(cudaGetLastError());
  done.record(low.get());
  done.make_wait(high.get());
  KSYNC_CUDA_CHECK(cudaMemcpyAsync(seen.data(), value.data(), sizeof(float), cudaMemcpyDeviceToHost, high.get()));
  high.synchronize();
  EXPECT_EQ(seen.data()[0], 7.0f) << "the copy on the waiting stream ran before the other stream's write";
  EXPECT_GE(done.milliseconds_since(start), 0.9f) << "the span does not cover the 1 ms kernel between the events";
  const ksync::cuda::stream moved = std::move(high);  // the handle moves; only `moved` destroys it
  EXPECT_NE(moved.get(), nullptr);
  moved.synchronize();
}

TEST(StreamGpu, AnEventOrdersAConsumerStreamAfterASlowProducer) {
  KSYNC_REQUIRE_GPU();
  const std::size_t n = 1 << 20;
  const ksync::cuda::stream producer;
  const ksync::cuda::stream consumer;
  const ksync::cuda::event produced;
  ksync::cuda::device_buffer<float> data(n);
  const ksync::cuda::pinned_buffer<float> seen(n);
  for (const float value : {1.0f, 2.0f, 3.0f}) {
    // The producer spends 2 ms before writing; only the event keeps the consumer's copy behind it.
    write_after<<<132, 256, 0, producer.get()>>>(data.data(), n, value, 2'000'000);
    KSYNC_CUDA_CHECK(cudaGetLastError());
    produced.record(producer.get());
    produced.make_wait(consumer.get());
    KSYNC_CUDA_CHECK(
        cudaMemcpyAsync(seen.data(), data.data(), n * sizeof(float), cudaMemcpyDeviceToHost, consumer.get()));
    consumer.synchronize();
    EXPECT_EQ(std::count(seen.data(), seen.data() + n, value), static_cast<std::ptrdiff_t>(n));
  }
}

TEST(ManagedGpu, PrefetchedAndFaultedManagedMemoryGiveTheSameResults) {
  KSYNC_REQUIRE_GPU();
  const std::size_t n = 1'000'003;
  int device = 0;
  KSYNC_CUDA_CHECK(cudaGetDevice(&device));
  const ksync::cuda::stream stream;
  const ksync::cuda::managed_buffer<float> in(n);
  const ksync::cuda::managed_buffer<float> out(n);
  EXPECT_EQ(in.size(), n);
  for (const bool prefetch : {false, true}) {
    SCOPED_TRACE(prefetch ? "prefetched" : "migrated on fault");
    for (std::size_t i = 0; i < n; ++i)
      in.data()[i] = static_cast<float>(i % 777);  // first touch on the host
    if (prefetch) {
      in.prefetch_to_device(stream.get(), device);
      out.prefetch_to_device(stream.get(), device);
    }
    ksync::cuda::transform(stream.get(), in.data(), n, out.data(), TwiceAndOne{});
    if (prefetch) out.prefetch_to_host(stream.get());
    stream.synchronize();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
      wrong += out.data()[i] != TwiceAndOne{}(in.data()[i]) ? 1 : 0;
    EXPECT_EQ(wrong, 0u);
  }
  const ksync::cuda::managed_buffer<float> empty;
  EXPECT_EQ(empty.size(), 0u);
}

TEST(Pipeline, BadArgumentsThrowNamingThemBeforeAnyCudaCall) {
  std::vector<float> in(100);
  std::vector<float> out(100);
  const auto message = [&](std::size_t n, ksync::cuda::pipeline_config config, std::size_t out_size = 100) {
    return ksync::test::invalid_argument_message([&] {
      (void)ksync::cuda::pipeline(std::span<const float>(in), std::span<float>(out.data(), out_size), n, TwiceAndOne{},
                                  config);
    });
  };
  EXPECT_NE(message(100, {.streams = 0}).find("config.streams = 0"), std::string::npos);
  EXPECT_NE(message(100, {.chunk_elements = 0}).find("config.chunk_elements = 0"), std::string::npos);
  EXPECT_NE(message(100, {.chunk_elements = 101}).find("exceeds n = 100"), std::string::npos);
  EXPECT_NE(message(101, {.chunk_elements = 10}).find("host_in holds 100"), std::string::npos);
  EXPECT_NE(message(100, {.chunk_elements = 10}, 99).find("host_out holds 99"), std::string::npos);
  try {
    (void)ksync::cuda::pipeline(std::span<const float>(), std::span<float>(), 5, TwiceAndOne{}, {.chunk_elements = 1});
    ADD_FAILURE() << "null buffers were accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("host_in holds 0"), std::string::npos) << error.what();
  }
}

}  // namespace
