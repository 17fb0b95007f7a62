// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Streams and events as owning objects. Both move, never copy (a std::unique_ptr holds the
// handle); errors carry the call and the file:line (KSYNC_CUDA_CHECK).
//   stream  cudaStreamCreateWithPriority: non-blocking by default (it does not wait for the legacy default
//           stream); `priority` within stream_priority_range() (a lower number is a higher priority). If
//           ksync::cuda work that keeps a workspace ran on it (a reduction, the mailbox, a persistent kernel),
//           destruction waits for the stream's work, then frees the stream's workspace (detail/workspace.hpp):
//           the frees may wait for the whole device, so no such stream may be destroyed while a host_gate
//           holds another stream.
//   event   cudaEventCreateWithFlags: record on a stream, wait on it from another (cudaStreamWaitEvent),
//           time the span between two (milliseconds).
#pragma once

#include <ksync/cuda/allocation.hpp>  // the handle ledger tests read
#include <ksync/cuda/detail/workspace.hpp>
#include <ksync/cuda/error.hpp>

#include <cuda_runtime_api.h>

#include <memory>
#include <type_traits>

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

namespace detail {
struct stream_deleter {
  void operator()(cudaStream_t handle) const noexcept {
    release_stream_workspace(handle);
    (void)cudaStreamDestroy(handle);
    count_handle(handle_kind::stream, -1);
  }
};
struct event_deleter {
  void operator()(cudaEvent_t handle) const noexcept {
    (void)cudaEventDestroy(handle);
    count_handle(handle_kind::event, -1);
  }
};
}  // namespace detail

class stream {
 public:
  explicit stream(int priority = 0, unsigned int flags = cudaStreamNonBlocking) {
    cudaStream_t created = nullptr;
    KSYNC_CUDA_CHECK(cudaStreamCreateWithPriority(&created, flags, priority));
    detail::count_handle(handle_kind::stream, +1);
    handle_.reset(created);
  }
  [[nodiscard]] cudaStream_t get() const noexcept { return handle_.get(); }
  void synchronize() const { KSYNC_CUDA_CHECK(cudaStreamSynchronize(get())); }

 private:
  std::unique_ptr<std::remove_pointer_t<cudaStream_t>, detail::stream_deleter> handle_;
};

class event {
 public:
  explicit event(unsigned int flags = cudaEventDefault) {
    cudaEvent_t created = nullptr;
    KSYNC_CUDA_CHECK(cudaEventCreateWithFlags(&created, flags));
    detail::count_handle(handle_kind::event, +1);
    handle_.reset(created);
  }
  [[nodiscard]] cudaEvent_t get() const noexcept { return handle_.get(); }
  void record(cudaStream_t on) const { KSYNC_CUDA_CHECK(cudaEventRecord(get(), on)); }
  // Makes later work on `waiter` wait until this event's recorded work has finished.
  void make_wait(cudaStream_t waiter) const { KSYNC_CUDA_CHECK(cudaStreamWaitEvent(waiter, get(), 0)); }
  void synchronize() const { KSYNC_CUDA_CHECK(cudaEventSynchronize(get())); }
  // Milliseconds from `start` to this event (both recorded and complete).
  [[nodiscard]] float milliseconds_since(const event& start) const {
    float milliseconds = 0;
    KSYNC_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start.get(), get()));
    return milliseconds;
  }

 private:
  std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, detail::event_deleter> handle_;
};

}  // namespace ksync::cuda
