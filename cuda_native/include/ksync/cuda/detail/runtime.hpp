// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Facts about the machine that the native operations size their launches from.
#pragma once

#include <ksync/cuda/detail/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace ksync::cuda {

// Number of CUDA devices this process can use; 0 when there is no driver or no device (never throws), so
// callers (tests, benchmarks) can skip GPU work cleanly on a machine without a GPU.
[[nodiscard]] int visible_device_count() noexcept;

namespace detail {

// The device that owns `stream`'s work (the current device for the legacy/per-thread default streams).
[[nodiscard]] int stream_device(cudaStream_t stream);

// Multiprocessor count of `device`, read once per device and cached.
[[nodiscard]] int multiprocessor_count(int device);

// ksync's own stream-ordered pool for short-lived scratch (reduction partials, blocking results) on
// `device`. It keeps freed memory for reuse (release threshold: unlimited) so that a call costs no real
// allocation after the first; it is separate from the device's default pool, whose settings stay the
// user's. Created on first use, it lives until the process ends (destroying it during static teardown
// could outlive the CUDA context); it holds at most the largest scratch any one call needed.
[[nodiscard]] cudaMemPool_t scratch_pool(int device);

// Makes `device` current for a scope and restores the previous device after it (also on exceptions).
class device_guard {
 public:
  explicit device_guard(int device) {
    KSYNC_CUDA_CHECK(cudaGetDevice(&previous_));
    if (device != previous_) KSYNC_CUDA_CHECK(cudaSetDevice(device));
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;
  device_guard(device_guard&&) = delete;
  device_guard& operator=(device_guard&&) = delete;
  ~device_guard() { (void)cudaSetDevice(previous_); }

 private:
  int previous_ = 0;
};

// Copies `bytes` from host memory (pageable or pinned) to device memory and returns once they have landed,
// so that work on any stream sees them. A plain cudaMemcpy from pageable memory may return as soon as the
// bytes are staged, before they land, and work on a non-blocking stream is not ordered after it.
inline void copy_to_device_and_wait(void* dst, const void* src, std::size_t bytes) {
  KSYNC_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cudaStreamLegacy));
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

}  // namespace detail
}  // namespace ksync::cuda
