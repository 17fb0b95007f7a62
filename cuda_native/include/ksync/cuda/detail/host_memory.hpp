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
#include <memory>
#include <span>

namespace ksync::cuda {

namespace detail {
struct pinned_deleter {
  void operator()(void* data) const noexcept { (void)cudaFreeHost(data); }
};
struct registration_deleter {
  void operator()(void* data) const noexcept { (void)cudaHostUnregister(data); }
};
}  // namespace detail

template <class T>
class pinned_buffer {
 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t count, unsigned int flags = cudaHostAllocDefault) : count_(count) {
    void* allocated = nullptr;
    if (count_ > 0) KSYNC_CUDA_CHECK(cudaHostAlloc(&allocated, count_ * sizeof(T), flags));
    data_.reset(allocated);
  }
  [[nodiscard]] T* data() const noexcept { return static_cast<T*>(data_.get()); }
  // 0 once moved from: the count belongs to the memory.
  [[nodiscard]] std::size_t size() const noexcept { return data_ ? count_ : 0; }
  [[nodiscard]] std::span<T> span() const noexcept { return {data(), size()}; }

 private:
  std::unique_ptr<void, detail::pinned_deleter> data_;
  std::size_t count_ = 0;
};

class host_registration {
 public:
  host_registration(void* data, std::size_t bytes, unsigned int flags = cudaHostRegisterDefault) {
    detail::check_argument(data != nullptr && bytes > 0, "ksync::cuda::host_registration", "data = ", data,
                           " and bytes = ", bytes, ": nothing to pin");
    KSYNC_CUDA_CHECK(cudaHostRegister(data, bytes, flags));
    data_.reset(data);
  }

 private:
  std::unique_ptr<void, detail::registration_deleter> data_;
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
