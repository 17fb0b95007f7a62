// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Host memory the copy engines can read and write directly: page-locked ("pinned") memory.
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

#include <ksync/cuda/allocation.hpp>
#include <ksync/cuda/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

namespace ksync::cuda {

namespace detail {
struct registration_deleter {
  void operator()(void* data) const noexcept { (void)cudaHostUnregister(data); }
};
}  // namespace detail

template <class T>
class pinned_buffer : public detail::owned_elements<T, memory_kind::pinned> {
 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t count, unsigned int flags = cudaHostAllocDefault,
                         const char* who = "ksync::cuda::pinned_buffer")
      : detail::owned_elements<T, memory_kind::pinned>(count, who, flags) {}
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
class managed_buffer : public detail::owned_elements<T, memory_kind::managed> {
 public:
  using detail::owned_elements<T, memory_kind::managed>::data;
  using detail::owned_elements<T, memory_kind::managed>::size;

  managed_buffer() = default;
  explicit managed_buffer(std::size_t count, const char* who = "ksync::cuda::managed_buffer")
      : detail::owned_elements<T, memory_kind::managed>(count, who, 0) {}
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
