// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The legacy-default-stream pitfall, as one function each translation unit compiles for itself:
// concurrency_bench.cu with the legacy default stream, default_stream_per_thread.cu with
// `--default-stream per-thread`. The code is the same; only the meaning of a launch without a stream
// argument differs.
#pragma once

#include <ksync/cuda/error.hpp>
#include <ksync/cuda/global_timer.cuh>
#include <ksync/cuda/stream.hpp>

#include <algorithm>
#include <cstdint>

namespace ksync::bench {
namespace {

__global__ void spin_kernel(std::uint64_t nanoseconds) {
  ksync::cuda::spin_for(nanoseconds);
}

// Two streams made with cudaStreamCreate's default (blocking) flag, each given a kernel of `nanoseconds`,
// and between the two launches one tiny kernel launched without a stream argument. Returns the
// milliseconds from the first launch until both streams are done: about one kernel when the streams
// overlap, two when the stream-less launch serialized them.
float two_streams_with_a_default_launch_between(std::uint64_t nanoseconds) {
  const ksync::cuda::stream first(0, cudaStreamDefault);
  const ksync::cuda::stream second(0, cudaStreamDefault);
  const ksync::cuda::event start;
  const ksync::cuda::event first_done;
  const ksync::cuda::event second_done;
  start.record(first.get());
  start.make_wait(second.get());
  spin_kernel<<<1, 32, 0, first.get()>>>(nanoseconds);
  spin_kernel<<<1, 32>>>(0);  // no stream argument: the legacy default stream, or this thread's own
  spin_kernel<<<1, 32, 0, second.get()>>>(nanoseconds);
  KSYNC_CUDA_CHECK(cudaGetLastError());
  first_done.record(first.get());
  second_done.record(second.get());
  first_done.synchronize();
  second_done.synchronize();
  return std::max(first_done.milliseconds_since(start), second_done.milliseconds_since(start));
}

}  // namespace
}  // namespace ksync::bench
