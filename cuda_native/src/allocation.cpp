// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda's one way to allocate and free (ksync/cuda/allocation.hpp).
#include "detail/fault_countdown.hpp"

#include <ksync/cuda/allocation.hpp>

#include <atomic>
#include <sstream>

namespace ksync::cuda {
namespace {

constexpr int kinds = 3;
std::atomic<std::size_t> live[kinds];  // bytes held, per memory_kind
constexpr int handle_kinds = 3;
std::atomic<std::ptrdiff_t> live_handle_count[handle_kinds];  // per handle_kind
detail::fault_countdown allocation_failure;

int index_of(memory_kind kind) {
  return static_cast<int>(kind);
}

const char* name_of(memory_kind kind) {
  switch (kind) {
    case memory_kind::device:
      return "device memory (cudaMalloc)";
    case memory_kind::pinned:
      return "pinned host memory (cudaHostAlloc)";
    case memory_kind::managed:
      return "managed memory (cudaMallocManaged)";
  }
  return "memory of an unknown kind";
}

}  // namespace

std::size_t live_bytes(memory_kind kind) noexcept {
  return live[index_of(kind)].load(std::memory_order_relaxed);
}

std::size_t live_handles(handle_kind kind) noexcept {
  return static_cast<std::size_t>(live_handle_count[static_cast<int>(kind)].load(std::memory_order_relaxed));
}

void fail_allocation_after(int nth) noexcept {
  allocation_failure.arm(nth);
}

namespace detail {

void* allocate(memory_kind kind, std::size_t bytes, const char* who, unsigned int flags) {
  if (bytes == 0) return nullptr;
  void* memory = nullptr;
  cudaError_t status = cudaErrorMemoryAllocation;
  if (!allocation_failure.due()) {
    switch (kind) {
      case memory_kind::device:
        status = cudaMalloc(&memory, bytes);
        break;
      case memory_kind::pinned:
        status = cudaHostAlloc(&memory, bytes, flags);
        break;
      case memory_kind::managed:
        status = cudaMallocManaged(&memory, bytes, cudaMemAttachGlobal);
        break;
    }
  }
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: clear it, so that the next launch check does not report it
    std::ostringstream message;
    message << who << ": allocating " << bytes << " bytes of " << name_of(kind)
            << " failed: " << cudaGetErrorName(status) << " (" << cudaGetErrorString(status) << ")";
    throw allocation_error(status, message.str(), bytes);
  }
  live[index_of(kind)].fetch_add(bytes, std::memory_order_relaxed);
  return memory;
}

void release(memory_kind kind, void* memory, std::size_t bytes) noexcept {
  if (memory == nullptr) return;
  switch (kind) {
    case memory_kind::device:
    case memory_kind::managed:
      (void)cudaFree(memory);
      break;
    case memory_kind::pinned:
      (void)cudaFreeHost(memory);
      break;
  }
  live[index_of(kind)].fetch_sub(bytes, std::memory_order_relaxed);
}

void count_handle(handle_kind kind, int change) noexcept {
  live_handle_count[static_cast<int>(kind)].fetch_add(change, std::memory_order_relaxed);
}

}  // namespace detail
}  // namespace ksync::cuda
