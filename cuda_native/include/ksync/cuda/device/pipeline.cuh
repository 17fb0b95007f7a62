// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::pipeline — seed 002's overlapped copy/compute: host_out[i] = f(host_in[i]) for i in [0, n),
// the data cut into chunks of `chunk_elements` and spread over `streams` streams (chunk c on stream
// c % streams): each chunk is copied host-to-device, transformed (ksync::cuda::transform), and copied back,
// so one chunk's copies overlap other chunks' kernels and copies in the other direction. The portable twin
// is ksync::pipeline (src/ksync/pipeline.hpp). Include from .cu files: `f` is a device functor.
//
//   pipeline(host_in, host_out, n, f[, config])  blocking: returns when host_out holds every result.
//
// Device memory for all n inputs and outputs is allocated once per call and addressed by chunk offset (so
// the breadth-first order, which issues every copy before any kernel, never reuses a chunk's memory early).
// The last chunk is shorter when chunk_elements does not divide n. Pageable host memory is accepted — its
// copies are staged by the driver and overlap nothing — and reported in the result. With
// config.record_timeline, events around every step give a per-chunk, per-stream timeline (milliseconds
// from one origin event that every stream waits for). Streams, events and device memory are owned by the
// call: an exception from any step leaves none of them behind.
#pragma once

#include <ksync/cuda/detail/device_buffer.hpp>
#include <ksync/cuda/detail/error.hpp>
#include <ksync/cuda/detail/host_memory.hpp>
#include <ksync/cuda/detail/stream.hpp>
#include <ksync/cuda/device/pipeline_report.hpp>
#include <ksync/cuda/device/transform.cuh>
#include <ksync/types.hpp>

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace ksync::cuda {

using ksync::pipeline_config;  // shared with the portable twin (ksync/types.hpp)

namespace detail {

// Every check comes before any CUDA call (the tests run them on machines without a GPU).
template <class T, class U>
void check_pipeline_arguments(std::span<const T> host_in, std::span<U> host_out, std::size_t n,
                              const pipeline_config& config) {
  constexpr const char* where = "ksync::cuda::pipeline";
  check_argument(config.streams >= 1, where, "config.streams = ", config.streams, " must be at least 1");
  check_argument(config.chunk_elements >= 1, where, "config.chunk_elements = ", config.chunk_elements,
                 " must be at least 1");
  check_argument(n == 0 || config.chunk_elements <= n, where, "config.chunk_elements = ", config.chunk_elements,
                 " exceeds n = ", n);
  check_argument(host_in.size() >= n, where, "host_in holds ", host_in.size(), " elements, fewer than n = ", n);
  check_argument(host_out.size() >= n, where, "host_out holds ", host_out.size(), " elements, fewer than n = ", n);
  check_argument(n == 0 || (host_in.data() != nullptr && host_out.data() != nullptr), where,
                 "host_in and host_out must not be null for n = ", n);
}

}  // namespace detail

// host_out[i] = f(host_in[i]) for i in [0, n); both spans must hold at least n elements.
template <class T, class U, class F>
pipeline_report pipeline(std::span<const T> host_in, std::span<U> host_out, std::size_t n, F f,
                         const pipeline_config& config = {}) {
  detail::check_pipeline_arguments(host_in, host_out, n, config);
  pipeline_report report;
  report.chunks = n == 0 ? 0 : (n + config.chunk_elements - 1) / config.chunk_elements;
  if (n == 0) return report;
  report.pinned_input = is_pinned(host_in.data());
  report.pinned_output = is_pinned(host_out.data());

  device_buffer<T> device_in(n);
  device_buffer<U> device_out(n);
  std::vector<stream> streams;
  streams.reserve(static_cast<std::size_t>(config.streams));
  for (int s = 0; s < config.streams; ++s)
    streams.emplace_back();
  // Events: an origin every stream waits for, then four per chunk when a timeline is asked for.
  const event origin;
  std::vector<event> marks;
  if (config.record_timeline) marks.resize(4 * report.chunks);
  origin.record(streams.front().get());
  for (const auto& s : streams)
    origin.make_wait(s.get());

  const auto chunk_range = [&](std::size_t c) {
    const std::size_t begin = c * config.chunk_elements;
    return std::pair{begin, std::min(config.chunk_elements, n - begin)};
  };
  const auto stream_of = [&](std::size_t c) { return streams[c % streams.size()].get(); };
  const auto mark = [&](std::size_t c, int step) {
    if (config.record_timeline) marks[4 * c + static_cast<std::size_t>(step)].record(stream_of(c));
  };
  const auto copy_in = [&](std::size_t c) {
    const auto [begin, count] = chunk_range(c);
    mark(c, 0);
    KSYNC_CUDA_CHECK(cudaMemcpyAsync(device_in.data() + begin, host_in.data() + begin, count * sizeof(T),
                                     cudaMemcpyHostToDevice, stream_of(c)));
    mark(c, 1);
  };
  const auto compute = [&](std::size_t c) {
    const auto [begin, count] = chunk_range(c);
    transform(stream_of(c), device_in.data() + begin, count, device_out.data() + begin, f);
    mark(c, 2);
  };
  const auto copy_out = [&](std::size_t c) {
    const auto [begin, count] = chunk_range(c);
    KSYNC_CUDA_CHECK(cudaMemcpyAsync(host_out.data() + begin, device_out.data() + begin, count * sizeof(U),
                                     cudaMemcpyDeviceToHost, stream_of(c)));
    mark(c, 3);
  };
  if (config.order == issue_order::depth_first) {
    for (std::size_t c = 0; c < report.chunks; ++c) {
      copy_in(c);
      compute(c);
      copy_out(c);
    }
  } else {
    for (std::size_t c = 0; c < report.chunks; ++c)
      copy_in(c);
    for (std::size_t c = 0; c < report.chunks; ++c)
      compute(c);
    for (std::size_t c = 0; c < report.chunks; ++c)
      copy_out(c);
  }
  for (const auto& s : streams)
    s.synchronize();
  if (config.record_timeline) {
    report.timeline.reserve(report.chunks);
    for (std::size_t c = 0; c < report.chunks; ++c) {
      const auto at = [&](int step) {
        return marks[4 * c + static_cast<std::size_t>(step)].milliseconds_since(origin);
      };
      report.timeline.push_back({.chunk = c,
                                 .stream = static_cast<int>(c % streams.size()),
                                 .copy_in_begin = at(0),
                                 .copy_in_end = at(1),
                                 .kernel_end = at(2),
                                 .copy_out_end = at(3)});
      report.milliseconds = std::max(report.milliseconds, report.timeline.back().copy_out_end);
    }
  }
  return report;
}

}  // namespace ksync::cuda
