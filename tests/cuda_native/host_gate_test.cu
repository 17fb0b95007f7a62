// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::host_gate: work held behind the gate (a copy, a kernel reading pinned memory) waits for the host's
// opening and then sees what the host stored before it; one hold per opening; opening on the way out; many holds
// and openings in turn. A stream the gate never released fails a bounded wait (the gate then opens as the test
// ends). Under compute-sanitizer (an injected tool) no gate is used, and these tests skip.
#include "../support/gpu.hpp"

#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/host_gate.hpp>
#include <ksync/cuda/host_memory.hpp>
#include <ksync/cuda/stream.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <thread>

namespace ksync::test {
namespace {

#define KSYNC_REQUIRE_STREAM_WAIT(held) \
  if (!(held))                          \
  GTEST_SKIP() << "ksync-skip: no host gate here (no cuStreamWaitValue32, CUDA_LAUNCH_BLOCKING or an injected tool)"

// *target = *source read when the kernel runs (source: pinned host memory, read over the bus).
__global__ void copy_one(const std::int32_t* source, std::int32_t* target) {
  *target = *source;
}

void store(std::int32_t* host, std::int32_t value) {
  std::atomic_ref<std::int32_t>(*host).store(value, std::memory_order_relaxed);
}

// Whether `stream` finishes within `seconds` (polled, so a stream held for good fails the test instead of hanging it;
// the gate's destructor then opens it).
bool finishes_within(cudaStream_t stream, double seconds) {
  const auto start = std::chrono::steady_clock::now();
  while (cudaStreamQuery(stream) == cudaErrorNotReady) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return cudaStreamQuery(stream) == cudaSuccess;
}

// A stream, `count` words of pinned host memory (each -1) with as many on the device, and the gate. copy_one has
// run once, ungated: a kernel's first launch may synchronize the context (lazy loading), which a held stream would
// never let finish. The gate is the last member, so it is destroyed, and opened, first: the buffers' frees
// synchronize the device.
struct gated_words {
  cuda::stream stream;
  cuda::pinned_buffer<std::int32_t> host;
  cuda::device_buffer<std::int32_t> device;
  cuda::host_gate gate;
  explicit gated_words(std::size_t count) : host(count), device(count) {
    for (std::size_t k = 0; k < count; ++k)
      store(host.data() + k, -1);
    copy_one<<<1, 1, 0, stream.get()>>>(host.data(), device.data());
    EXPECT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  }
};

TEST(NativeHostGateGpu, HeldWorkWaitsForTheOpeningAndSeesTheHostsStoresBeforeIt) {
  KSYNC_REQUIRE_GPU();
  gated_words words(2);
  auto& [stream, host, device, gate] = words;
  const bool held = gate.hold(stream.get());
  KSYNC_REQUIRE_STREAM_WAIT(held);
  EXPECT_TRUE(gate.held());
  ASSERT_EQ(cudaMemcpyAsync(device.data(), host.data(), sizeof(std::int32_t), cudaMemcpyHostToDevice, stream.get()),
            cudaSuccess);
  copy_one<<<1, 1, 0, stream.get()>>>(host.data() + 1, device.data() + 1);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(cudaStreamQuery(stream.get()), cudaErrorNotReady) << "the work behind the gate ran before the opening";
  store(host.data(), 42);  // after the hold and the enqueues, before the opening: the held work must see them
  store(host.data() + 1, 43);
  gate.open();
  EXPECT_FALSE(gate.held());
  ASSERT_TRUE(finishes_within(stream.get(), 10.0));
  const auto values = device.to_host();
  EXPECT_EQ(values.at(0), 42) << "the copy from pinned memory";
  EXPECT_EQ(values.at(1), 43) << "the kernel reading pinned memory";
}

TEST(NativeHostGateGpu, OneHoldPerOpeningAndOpeningWhatIsNotHeldDoesNothing) {
  KSYNC_REQUIRE_GPU();
  gated_words words(1);
  cuda::host_gate& gate = words.gate;
  gate.open();  // not held: nothing
  const cuda::host_gate::opening opens(gate);
  const bool held = gate.hold(words.stream.get());
  KSYNC_REQUIRE_STREAM_WAIT(held);
  EXPECT_THROW((void)gate.hold(words.stream.get()), std::logic_error);
  gate.open();
  gate.open();
  EXPECT_TRUE(finishes_within(words.stream.get(), 10.0));
}

struct host_step_failed {};

TEST(NativeHostGateGpu, AHostStepThatThrowsStillOpensTheGate) {
  KSYNC_REQUIRE_GPU();
  gated_words words(1);
  auto& [stream, host, device, gate] = words;
  bool held = false;
  try {
    const cuda::host_gate::opening opens(gate);
    held = gate.hold(stream.get());
    copy_one<<<1, 1, 0, stream.get()>>>(host.data(), device.data());
    store(host.data(), 7);
    throw host_step_failed{};
  } catch (const host_step_failed&) {  // what the host step threw, nothing else
  }
  KSYNC_REQUIRE_STREAM_WAIT(held);
  EXPECT_FALSE(gate.held());
  ASSERT_TRUE(finishes_within(stream.get(), 10.0)) << "the gate stayed shut";
  EXPECT_EQ(device.to_host().at(0), 7);
}

TEST(NativeHostGateGpu, ManyHoldsAndOpeningsInTurnLeaveNothingWaiting) {
  KSYNC_REQUIRE_GPU();
  constexpr int openings = 2000;
  gated_words words(openings);
  auto& [stream, host, device, gate] = words;
  for (int k = 0; k < openings; ++k) {
    const bool held = gate.hold(stream.get());
    KSYNC_REQUIRE_STREAM_WAIT(held);
    copy_one<<<1, 1, 0, stream.get()>>>(host.data() + k, device.data() + k);
    store(host.data() + k, k);
    gate.open();
  }
  ASSERT_TRUE(finishes_within(stream.get(), 30.0));
  const auto values = device.to_host();
  for (int k = 0; k < openings; ++k)
    ASSERT_EQ(values.at(k), k) << "opening " << k;
}

}  // namespace
}  // namespace ksync::test
