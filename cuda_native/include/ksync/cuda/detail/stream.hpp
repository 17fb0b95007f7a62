// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Streams and events as owning objects (seed 002). Both move, never copy; errors carry the call and the
// file:line (KSYNC_CUDA_CHECK).
//   stream  cudaStreamCreateWithPriority: non-blocking by default (it does not wait for the legacy default
//           stream); `priority` within stream_priority_range() (a lower number is a higher priority).
//   event   cudaEventCreateWithFlags: record on a stream, wait on it from another (cudaStreamWaitEvent),
//           time the span between two (milliseconds).
#pragma once

#include <ksync/cuda/detail/error.hpp>

#include <cuda_runtime_api.h>

#include <utility>

namespace ksync::cuda {

struct priority_range {
  int lowest = 0;    // the default priority
  int greatest = 0;  // numerically smallest
};

[[nodiscard]] inline priority_range stream_priority_range() {
  priority_range range;
  KSYNC_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&range.lowest, &range.greatest));
  return range;
}

class stream {
 public:
  explicit stream(int priority = 0, unsigned int flags = cudaStreamNonBlocking) {
    KSYNC_CUDA_CHECK(cudaStreamCreateWithPriority(&handle_, flags, priority));
  }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  stream(stream&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  stream& operator=(stream&& other) noexcept {
    if (this != &other) {
      release();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  ~stream() { release(); }

  [[nodiscard]] cudaStream_t get() const noexcept { return handle_; }
  void synchronize() const { KSYNC_CUDA_CHECK(cudaStreamSynchronize(handle_)); }

 private:
  void release() noexcept {
    if (handle_ != nullptr) (void)cudaStreamDestroy(handle_);
    handle_ = nullptr;
  }
  cudaStream_t handle_ = nullptr;
};

class event {
 public:
  explicit event(unsigned int flags = cudaEventDefault) { KSYNC_CUDA_CHECK(cudaEventCreateWithFlags(&handle_, flags)); }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  event(event&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  event& operator=(event&& other) noexcept {
    if (this != &other) {
      release();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  ~event() { release(); }

  [[nodiscard]] cudaEvent_t get() const noexcept { return handle_; }
  void record(cudaStream_t on) const { KSYNC_CUDA_CHECK(cudaEventRecord(handle_, on)); }
  // Makes later work on `waiter` wait until this event's recorded work has finished.
  void make_wait(cudaStream_t waiter) const { KSYNC_CUDA_CHECK(cudaStreamWaitEvent(waiter, handle_, 0)); }
  void synchronize() const { KSYNC_CUDA_CHECK(cudaEventSynchronize(handle_)); }
  // Milliseconds from `start` to this event (both recorded and complete).
  [[nodiscard]] float milliseconds_since(const event& start) const {
    float milliseconds = 0;
    KSYNC_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start.handle_, handle_));
    return milliseconds;
  }

 private:
  void release() noexcept {
    if (handle_ != nullptr) (void)cudaEventDestroy(handle_);
    handle_ = nullptr;
  }
  cudaEvent_t handle_ = nullptr;
};

}  // namespace ksync::cuda
