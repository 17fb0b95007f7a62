// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Host memory the copy engines can read and write directly (seed 002): page-locked ("pinned") memory.
//   pinned_buffer<T>   n elements from cudaHostAlloc, freed with cudaFreeHost; moves, never copies.
//   host_registration  pins memory the caller already has (cudaHostRegister) for its lifetime.
//   is_pinned(ptr)     whether CUDA knows `ptr` as page-locked host memory (pageable memory is copied
//                      through a staging buffer, and its copies do not overlap with kernels).
//   managed_buffer<T>  n elements of managed (unified) memory, cudaMallocManaged: one pointer valid on host
//                      and device, its pages migrating on first touch; prefetch_to_device/prefetch_to_host
//                      (cudaMemPrefetchAsync) move them ahead of use instead of one fault at a time.
// Pinned memory is real RAM taken from the operating system: pin what you transfer, not everything. Managed
// memory suits data whose owner changes; for anything big that moves every step, plain device and pinned
// allocations with explicit copies are faster (bench/cuda_native/concurrency_bench.cu measures both).
#pragma once

#include <ksync/cuda/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <span>

namespace ksync::cuda {

namespace detail {
struct pinned_deleter {
  void operator()(void* data) const noexcept { (void)cudaFreeHost(data); }
};
struct managed_deleter {
  void operator()(void* data) const noexcept { (void)cudaFree(data); }
};
struct registration_deleter {
  void operator()(void* data) const noexcept { (void)cudaHostUnregister(data); }
};

// n elements of T that `Deleter` frees: what pinned_buffer and managed_buffer share. Moves, never copies.
template <class T, class Deleter>
class owned_elements {
 public:
  [[nodiscard]] T* data() const noexcept { return static_cast<T*>(data_.get()); }
  // 0 once moved from: the count belongs to the memory.
  [[nodiscard]] std::size_t size() const noexcept { return data_ ? count_ : 0; }
  [[nodiscard]] std::span<T> span() const noexcept { return {data(), size()}; }

 protected:
  owned_elements() = default;
  // Takes `allocate(&pointer, bytes)` (a CUDA allocator, checked) for count elements; none for count 0.
  template <class Allocate>
  owned_elements(std::size_t count, Allocate&& allocate) : count_(count) {
    void* allocated = nullptr;
    if (count_ > 0) allocate(&allocated, count_ * sizeof(T));
    data_.reset(allocated);
  }

 private:
  std::unique_ptr<void, Deleter> data_;
  std::size_t count_ = 0;
};
}  // namespace detail

template <class T>
class pinned_buffer : public detail::owned_elements<T, detail::pinned_deleter> {
 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t count, unsigned int flags = cudaHostAllocDefault)
      : detail::owned_elements<T, detail::pinned_deleter>(count, [flags](void** memory, std::size_t bytes) {
          KSYNC_CUDA_CHECK(cudaHostAlloc(memory, bytes, flags));
        }) {}
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

template <class T>
class managed_buffer : public detail::owned_elements<T, detail::managed_deleter> {
 public:
  using detail::owned_elements<T, detail::managed_deleter>::data;
  using detail::owned_elements<T, detail::managed_deleter>::size;

  managed_buffer() = default;
  explicit managed_buffer(std::size_t count)
      : detail::owned_elements<T, detail::managed_deleter>(count, [](void** memory, std::size_t bytes) {
          KSYNC_CUDA_CHECK(cudaMallocManaged(memory, bytes, cudaMemAttachGlobal));
        }) {}
  // Enqueue the migration of every page on `stream`: to `device`'s memory, or back to the host's.
  void prefetch_to_device(cudaStream_t stream, int device) const {
    prefetch(stream, {cudaMemLocationTypeDevice, device});
  }
  void prefetch_to_host(cudaStream_t stream) const { prefetch(stream, {cudaMemLocationTypeHost, 0}); }

 private:
  void prefetch(cudaStream_t stream, cudaMemLocation location) const {
    if (size() == 0) return;
#if CUDART_VERSION >= 13000
    KSYNC_CUDA_CHECK(cudaMemPrefetchAsync(data(), size() * sizeof(T), location, 0, stream));
#else  // 12.x: the location form has its own name
    KSYNC_CUDA_CHECK(cudaMemPrefetchAsync_v2(data(), size() * sizeof(T), location, 0, stream));
#endif
  }
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
