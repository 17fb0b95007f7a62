// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::pipeline — overlapped copy/compute: host_out[i] = f(host_in[i]) for i in [0, n),
// the data cut into chunks of `chunk_elements` and spread over `streams` streams (chunk c on stream
// c % streams): each chunk is copied host-to-device, transformed (ksync::cuda::transform), and copied back,
// so one chunk's copies overlap other chunks' kernels and copies in the other direction. The portable twin
// is ksync::pipeline (src/ksync/pipeline.hpp). Include from .cu files: `f` is a device functor.
//
//   pipeline_plan<T, U> plan(n, config)       the streams, events and device memory for n elements, made
//                                             once (cudaMalloc and stream creation cost more than a chunk);
//   plan.run(host_in, host_out, f)            blocking: returns when host_out holds every result;
//   plan.run(host_in, host_out, f, consume)   the same, and consume(begin, count) on the host for each
//                                             chunk as soon as its results land (cudaLaunchHostFunc);
//   pipeline(host_in, host_out, n, f[, config])  a plan made for one run.
//
// Device memory for all n inputs and outputs is addressed by chunk offset (so the breadth-first order,
// which issues every copy before any kernel, never reuses a chunk's memory early). The last chunk is
// shorter when chunk_elements does not divide n. Pageable host memory is accepted — its copies are staged
// by the driver and overlap nothing — and reported in the result. Every run reports its time: from an
// origin event, which every stream waits for, to the last stream's end. With config.record_timeline,
// events around every step give a per-chunk, per-stream timeline (milliseconds from the origin). Streams,
// events and device memory belong to the plan: an exception from any step leaves none of them behind.
#pragma once

#include <ksync/cuda/device/pipeline_report.hpp>
#include <ksync/cuda/device/transform.cuh>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/host_memory.hpp>
#include <ksync/cuda/stream.hpp>
#include <ksync/types.hpp>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace ksync::cuda {

using ksync::pipeline_config;  // shared with the portable twin (ksync/types.hpp)

namespace detail {

// Every check comes before any CUDA call (the tests run them on machines without a GPU); the configuration's
// are the portable twin's too (ksync/types.hpp).
inline void check_pipeline_config(std::size_t n, const pipeline_config& config) {
  ksync::detail::check_pipeline_config("ksync::cuda::pipeline", n, config);
}

template <class T, class U>
void check_pipeline_buffers(std::span<const T> host_in, std::span<U> host_out, std::size_t n) {
  constexpr const char* where = "ksync::cuda::pipeline";
  check_argument(host_in.size() >= n, where, "host_in holds ", host_in.size(), " elements, fewer than n = ", n);
  check_argument(host_out.size() >= n, where, "host_out holds ", host_out.size(), " elements, fewer than n = ", n);
  check_argument(n == 0 || (host_in.data() != nullptr && host_out.data() != nullptr), where,
                 "host_in and host_out must not be null for n = ", n);
}

// The chunk consumer of pipeline_plan::run: none, or a call per chunk from a CUDA host function.
struct no_chunk_consumer {};

struct consumer_failure {
  std::mutex guard;
  std::exception_ptr error;  // the first exception a consumer threw
};

template <class Consumer>
struct chunk_task {
  Consumer* consume = nullptr;
  std::size_t begin = 0;
  std::size_t count = 0;
  consumer_failure* failure = nullptr;
};

// Runs on a CUDA driver thread (cudaLaunchHostFunc): no CUDA calls here, and no exception may leave.
template <class Consumer>
void CUDART_CB consume_chunk(void* argument) noexcept {
  auto* task = static_cast<chunk_task<Consumer>*>(argument);
  try {
    (*task->consume)(task->begin, task->count);
  } catch (...) {
    const std::lock_guard<std::mutex> lock(task->failure->guard);
    if (!task->failure->error) task->failure->error = std::current_exception();
  }
}

}  // namespace detail

template <class T, class U = T>
class pipeline_plan {
 public:
  // Throws std::invalid_argument (before any CUDA call) for config.streams < 1, config.chunk_elements < 1 or
  // > n (n > 0).
  explicit pipeline_plan(std::size_t n, const pipeline_config& config = {}) : n_(n), config_(config) {
    detail::check_pipeline_config(n, config);
    chunks_ = n == 0 ? 0 : (n + config.chunk_elements - 1) / config.chunk_elements;
    if (n == 0) return;
    device_in_ = device_buffer<T>(n);
    device_out_ = device_buffer<U>(n);
    streams_.reserve(static_cast<std::size_t>(config.streams));
    for (int s = 0; s < config.streams; ++s)
      streams_.emplace_back();
    origin_.emplace();
    ends_.resize(streams_.size());
    if (config.record_timeline) marks_.resize(4 * chunks_);
  }

  [[nodiscard]] std::size_t size() const noexcept { return n_; }
  [[nodiscard]] const pipeline_config& config() const noexcept { return config_; }

  // host_out[i] = f(host_in[i]) for i in [0, size()); both spans must hold at least size() elements.
  template <class F>
  pipeline_report run(std::span<const T> host_in, std::span<U> host_out, F f) {
    return run(host_in, host_out, f, detail::no_chunk_consumer{});
  }

  // The same, and consume(begin, count) on the host for every chunk as soon as host_out[begin, begin +
  // count) holds its results, while later chunks are still in flight (cudaLaunchHostFunc on the chunk's
  // stream). `consume` runs on a CUDA driver thread: it must not call CUDA, and it may run while another
  // chunk's call is running. An exception from it is rethrown by run() once every stream is done.
  template <class F, class Consumer>
  pipeline_report run(std::span<const T> host_in, std::span<U> host_out, F f, Consumer consume) {
    detail::check_pipeline_buffers(host_in, host_out, n_);
    pipeline_report report;
    report.chunks = chunks_;
    if (n_ == 0) return report;
    report.pinned_input = is_pinned(host_in.data());
    report.pinned_output = is_pinned(host_out.data());
    origin_->record(streams_.front().get());
    for (const auto& s : streams_)
      origin_->make_wait(s.get());

    const auto chunk_range = [&](std::size_t c) {
      const std::size_t begin = c * config_.chunk_elements;
      return std::pair{begin, std::min(config_.chunk_elements, n_ - begin)};
    };
    const auto stream_of = [&](std::size_t c) { return streams_[c % streams_.size()].get(); };
    const auto mark = [&](std::size_t c, int step) {
      if (config_.record_timeline) marks_[4 * c + static_cast<std::size_t>(step)].record(stream_of(c));
    };
    const auto copy_in = [&](std::size_t c) {
      const auto [begin, count] = chunk_range(c);
      mark(c, 0);
      KSYNC_CUDA_CHECK(cudaMemcpyAsync(device_in_.data() + begin, host_in.data() + begin, count * sizeof(T),
                                       cudaMemcpyHostToDevice, stream_of(c)));
      mark(c, 1);
    };
    const auto compute = [&](std::size_t c) {
      const auto [begin, count] = chunk_range(c);
      transform(stream_of(c), device_in_.data() + begin, count, device_out_.data() + begin, f);
      mark(c, 2);
    };
    constexpr bool consumes = !std::is_same_v<Consumer, detail::no_chunk_consumer>;
    detail::consumer_failure failure;
    std::vector<detail::chunk_task<Consumer>> tasks(consumes ? chunks_ : 0);
    const auto copy_out = [&](std::size_t c) {
      const auto [begin, count] = chunk_range(c);
      KSYNC_CUDA_CHECK(cudaMemcpyAsync(host_out.data() + begin, device_out_.data() + begin, count * sizeof(U),
                                       cudaMemcpyDeviceToHost, stream_of(c)));
      mark(c, 3);
      if constexpr (consumes) {
        tasks[c] = {&consume, begin, count, &failure};
        KSYNC_CUDA_CHECK(cudaLaunchHostFunc(stream_of(c), detail::consume_chunk<Consumer>, &tasks[c]));
      }
    };
    try {
      if (config_.order == issue_order::depth_first) {
        for (std::size_t c = 0; c < chunks_; ++c) {
          copy_in(c);
          compute(c);
          copy_out(c);
        }
      } else {
        for (std::size_t c = 0; c < chunks_; ++c)
          copy_in(c);
        for (std::size_t c = 0; c < chunks_; ++c)
          compute(c);
        for (std::size_t c = 0; c < chunks_; ++c)
          copy_out(c);
      }
      for (std::size_t s = 0; s < streams_.size(); ++s)
        ends_[s].record(streams_[s].get());
      for (std::size_t s = 0; s < streams_.size(); ++s) {
        ends_[s].synchronize();
        report.milliseconds = std::max(report.milliseconds, ends_[s].milliseconds_since(*origin_));
      }
    } catch (...) {
      // A failed call, wherever it came: what was enqueued still reads the host spans and writes `tasks`
      // and `failure`, which live in this frame. Let it finish before they go.
      for (const auto& s : streams_)
        (void)cudaStreamSynchronize(s.get());
      throw;
    }
    if (config_.record_timeline) {
      report.timeline.reserve(chunks_);
      for (std::size_t c = 0; c < chunks_; ++c) {
        const auto at = [&](int step) {
          return marks_[4 * c + static_cast<std::size_t>(step)].milliseconds_since(*origin_);
        };
        report.timeline.push_back({.chunk = c,
                                   .stream = static_cast<int>(c % streams_.size()),
                                   .copy_in_begin = at(0),
                                   .copy_in_end = at(1),
                                   .kernel_end = at(2),
                                   .copy_out_end = at(3)});
      }
    }
    if (failure.error) std::rethrow_exception(failure.error);
    return report;
  }

 private:
  std::size_t n_ = 0;
  pipeline_config config_;
  std::size_t chunks_ = 0;
  device_buffer<T> device_in_;
  device_buffer<U> device_out_;
  std::vector<stream> streams_;
  std::optional<event> origin_;  // every stream waits for it: the run's time zero (none for n = 0)
  std::vector<event> ends_;      // one per stream, after its last step
  std::vector<event> marks_;     // four per chunk with record_timeline
};

// A plan for one run: host_out[i] = f(host_in[i]) for i in [0, n); both spans must hold at least n
// elements. Every argument is checked before any CUDA call.
template <class T, class U, class F>
pipeline_report pipeline(std::span<const T> host_in, std::span<U> host_out, std::size_t n, F f,
                         const pipeline_config& config = {}) {
  // The spans first: the plan allocates device memory once its configuration passes.
  detail::check_pipeline_buffers(host_in, host_out, n);
  return pipeline_plan<T, U>(n, config).run(host_in, host_out, f);
}

}  // namespace ksync::cuda
