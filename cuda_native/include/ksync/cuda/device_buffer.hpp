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
#include <utility>
#include <vector>

namespace ksync::cuda {

template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  // Throws allocation_error (ksync/cuda/allocation.hpp) naming `who` and the bytes when the device has no room.
  explicit device_buffer(std::size_t count, const char* who = "ksync::cuda::device_buffer")
      : data_(static_cast<T*>(detail::allocate(memory_kind::device, detail::bytes_of(count, sizeof(T), who), who))),
        count_(count) {}
  explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size()) { copy_from(host); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~device_buffer() { release(); }

  [[nodiscard]] T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }

  // Blocking copies between this buffer and host memory of the same size.
  void copy_from(const std::vector<T>& host) {
    detail::check_argument(host.size() == count_, "ksync::cuda::device_buffer::copy_from",
                           "host.size() = ", host.size(), " but the buffer holds ", count_);
    if (count_ > 0) detail::copy_to_device_and_wait(data_, host.data(), count_ * sizeof(T));
  }
  // Waits for the device-to-host copy; the caller waits for whatever stream wrote the buffer first.
  [[nodiscard]] std::vector<T> to_host() const {
    std::vector<T> host(count_);
    if (count_ > 0) KSYNC_CUDA_CHECK(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  void release() noexcept {
    detail::release(memory_kind::device, data_, count_ * sizeof(T));
    data_ = nullptr;
    count_ = 0;
  }
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace ksync::cuda
