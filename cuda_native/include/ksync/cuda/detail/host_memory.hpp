// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Host memory the copy engines can read and write directly (seed 002): page-locked ("pinned") memory.
//   pinned_buffer<T>   n elements from cudaHostAlloc, freed with cudaFreeHost; moves, never copies.
//   host_registration  pins memory the caller already has (cudaHostRegister) for its lifetime.
//   is_pinned(ptr)     whether CUDA knows `ptr` as page-locked host memory (pageable memory is copied
//                      through a staging buffer, and its copies do not overlap with kernels).
// Pinned memory is real RAM taken from the operating system: pin what you transfer, not everything.
#pragma once

#include <ksync/cuda/detail/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <utility>

namespace ksync::cuda {

template <class T>
class pinned_buffer {
 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t count, unsigned int flags = cudaHostAllocDefault) : count_(count) {
    if (count_ > 0) KSYNC_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&data_), count_ * sizeof(T), flags));
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  pinned_buffer(pinned_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  pinned_buffer& operator=(pinned_buffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~pinned_buffer() { release(); }

  [[nodiscard]] T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] std::span<T> span() const noexcept { return {data_, count_}; }

 private:
  void release() noexcept {
    if (data_ != nullptr) (void)cudaFreeHost(data_);
    data_ = nullptr;
    count_ = 0;
  }
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

class host_registration {
 public:
  host_registration(void* data, std::size_t bytes, unsigned int flags = cudaHostRegisterDefault) : data_(data) {
    detail::check_argument(data != nullptr && bytes > 0, "ksync::cuda::host_registration", "data = ", data,
                           " and bytes = ", bytes, ": nothing to pin");
    KSYNC_CUDA_CHECK(cudaHostRegister(data, bytes, flags));
  }
  host_registration(const host_registration&) = delete;
  host_registration& operator=(const host_registration&) = delete;
  host_registration(host_registration&& other) noexcept : data_(std::exchange(other.data_, nullptr)) {}
  host_registration& operator=(host_registration&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
    }
    return *this;
  }
  ~host_registration() { release(); }

 private:
  void release() noexcept {
    if (data_ != nullptr) (void)cudaHostUnregister(data_);
    data_ = nullptr;
  }
  void* data_ = nullptr;
};

// Whether `data` lies in page-locked host memory CUDA knows of (cudaHostAlloc or cudaHostRegister).
[[nodiscard]] inline bool is_pinned(const void* data) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, data) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

}  // namespace ksync::cuda
