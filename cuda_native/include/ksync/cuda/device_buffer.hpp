// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// device_buffer<T>: n elements of device memory owned by one object (ksync/cuda/allocation.hpp). Moves, never
// copies. Used by ksync's tests and benchmarks, and by code that wants device memory without Kokkos.
#pragma once

#include <ksync/cuda/allocation.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/runtime.hpp>  // copy_to_device_and_wait

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace ksync::cuda {

// Its ownership is detail::owned_elements' (ksync/cuda/allocation.hpp), as the host buffers' is; taken
// privately, so that a device pointer is not offered as a host std::span.
template <class T>
class device_buffer : private detail::owned_elements<T, memory_kind::device> {
  using owner = detail::owned_elements<T, memory_kind::device>;

 public:
  using owner::data;
  using owner::size;

  device_buffer() = default;
  // Throws allocation_error (ksync/cuda/allocation.hpp) naming `who` and the bytes when the device has no room.
  explicit device_buffer(std::size_t count, const char* who = "ksync::cuda::device_buffer") : owner(count, who, 0) {}
  explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size()) { copy_from(host); }

  // Blocking copies between this buffer and host memory of the same size.
  void copy_from(const std::vector<T>& host) {
    detail::check_argument(host.size() == size(), "ksync::cuda::device_buffer::copy_from",
                           "host.size() = ", host.size(), " but the buffer holds ", size());
    if (size() > 0) detail::copy_to_device_and_wait(data(), host.data(), size() * sizeof(T));
  }
  // Waits for the device-to-host copy; the caller waits for whatever stream wrote the buffer first.
  [[nodiscard]] std::vector<T> to_host() const {
    std::vector<T> host(size());
    if (size() > 0) KSYNC_CUDA_CHECK(cudaMemcpy(host.data(), data(), size() * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
};

}  // namespace ksync::cuda
