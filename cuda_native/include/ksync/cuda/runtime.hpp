// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Facts about the machine that the native operations size their launches from.
#pragma once

#include <ksync/cuda/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace ksync::cuda {

// Number of CUDA devices this process can use; 0 when there is no driver or no device (never throws), so
// callers (tests, benchmarks) can skip GPU work cleanly on a machine without a GPU.
[[nodiscard]] int visible_device_count() noexcept;

// NVIDIA GPUs the kernel driver lists (/proc/driver/nvidia/gpus), whatever the CUDA runtime can reach: a
// process whose runtime sees fewer has lost GPUs the machine has (a container or chroot without the driver's
// libraries, a driver/runtime mismatch). 0 where the driver is absent. Never throws.
[[nodiscard]] int driver_listed_gpu_count() noexcept;

// What a program that needs `required` GPUs does when the runtime sees `visible` of them.
//   run   — enough are visible;
//   skip  — the machine lacks them, or CUDA_VISIBLE_DEVICES (`devices_restricted`) hides them on purpose;
//   fail  — the driver lists enough (`listed`) but the runtime does not see them: skipping would report a
//           machine with GPUs as one without.
enum class gpu_presence { run, skip, fail };
[[nodiscard]] constexpr gpu_presence judge_gpu_presence(int required, int visible, int listed,
                                                        bool devices_restricted) noexcept {
  if (visible >= required) return gpu_presence::run;
  if (devices_restricted || listed < required) return gpu_presence::skip;
  return gpu_presence::fail;
}

// judge_gpu_presence for this process (CUDA_VISIBLE_DEVICES set, even empty, counts as restricted).
[[nodiscard]] gpu_presence gpu_presence_here(int required) noexcept;

// The device that owns `stream`'s work (the current device for the legacy/per-thread default streams).
[[nodiscard]] int stream_device(cudaStream_t stream);

// Multiprocessor count of `device`, read once per device and cached.
[[nodiscard]] int multiprocessor_count(int device);

// Makes `device` current for a scope and restores the previous device after it (also on exceptions). Where
// `device` is already current it costs one cudaGetDevice and sets nothing.
class device_guard {
 public:
  explicit device_guard(int device) {
    KSYNC_CUDA_CHECK(cudaGetDevice(&previous_));
    if (device != previous_) {
      KSYNC_CUDA_CHECK(cudaSetDevice(device));
      switched_ = true;
    }
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;
  device_guard(device_guard&&) = delete;
  device_guard& operator=(device_guard&&) = delete;
  ~device_guard() {
    if (switched_) (void)cudaSetDevice(previous_);
  }

 private:
  int previous_ = 0;
  bool switched_ = false;
};

namespace detail {

// ksync's own stream-ordered pool for short-lived scratch (reduction partials, blocking results) on
// `device`. It keeps freed memory for reuse (release threshold: unlimited) so that a call costs no real
// allocation after the first; it is separate from the device's default pool, whose settings stay the
// user's. Created on first use, it lives until the process ends (destroying it during static teardown
// could outlive the CUDA context); it holds at most the largest scratch any one call needed.
[[nodiscard]] cudaMemPool_t scratch_pool(int device);

// Copies `bytes` from host memory (pageable or pinned) to device memory and returns once they have landed,
// so that work on any stream sees them. A plain cudaMemcpy from pageable memory may return as soon as the
// bytes are staged, before they land, and work on a non-blocking stream is not ordered after it.
inline void copy_to_device_and_wait(void* dst, const void* src, std::size_t bytes) {
  KSYNC_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cudaStreamLegacy));
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

}  // namespace detail
}  // namespace ksync::cuda
