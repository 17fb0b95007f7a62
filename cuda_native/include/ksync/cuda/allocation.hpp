// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every allocation ksync::cuda makes (device, pinned and managed memory) goes through allocate() and
// release(), so that
//   - a failed one throws allocation_error naming who asked, how many bytes of which kind, and the CUDA error
//     (which is then cleared: a later launch check does not report it again);
//   - a byte count that overflows size_t is refused before anything is asked;
//   - live_bytes(kind) says how much ksync::cuda holds now (tests assert that a failure leaks nothing);
//   - tests can make the k-th allocation from now fail (fail_allocation_after), to reach every
//     allocating operation's error path without filling the GPU.
// The CUDA handles ksync::cuda makes (streams, events, executable graphs) are counted as they are created
// and destroyed: live_handles(kind), which tests assert, as the bytes, to be what it was before a failure.
#pragma once

#include <ksync/cuda/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <utility>

namespace ksync::cuda {

enum class memory_kind { device, pinned, managed };

// A failed allocation: cuda_error with code cudaErrorMemoryAllocation (or the error CUDA gave).
class allocation_error : public cuda_error {
 public:
  allocation_error(cudaError_t code, const std::string& message, std::size_t bytes)
      : cuda_error(code, message), bytes_(bytes) {}
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::size_t bytes_;
};

// Bytes ksync::cuda holds now in memory of `kind` (every owner included: buffers, workspaces, solvers).
[[nodiscard]] std::size_t live_bytes(memory_kind kind) noexcept;

enum class handle_kind { stream, event, graph };

// CUDA handles of `kind` ksync::cuda holds now (graph: executable graphs).
[[nodiscard]] std::size_t live_handles(handle_kind kind) noexcept;

// For tests: the `nth` allocation from now (1: the next) fails with cudaErrorMemoryAllocation as if the
// memory were exhausted; 0 cancels. One process-wide countdown.
void fail_allocation_after(int nth) noexcept;

namespace detail {

// `bytes` of `kind` on the current device (pinned: with cudaHostAlloc `flags`), for `who` (an operation's
// name, "ksync::cuda::cg"). Throws allocation_error. bytes = 0 returns null.
[[nodiscard]] void* allocate(memory_kind kind, std::size_t bytes, const char* who, unsigned int flags = 0);
void release(memory_kind kind, void* memory, std::size_t bytes) noexcept;

// Called where a handle of `kind` was created (change = +1) or destroyed (-1).
void count_handle(handle_kind kind, int change) noexcept;

// count elements of `element_bytes` each, refused (std::invalid_argument naming `who`) when they overflow.
[[nodiscard]] inline std::size_t bytes_of(std::size_t count, std::size_t element_bytes, const char* who) {
  check_argument(element_bytes == 0 || count <= std::numeric_limits<std::size_t>::max() / element_bytes, who,
                 "count = ", count, " elements of ", element_bytes, " bytes overflow size_t");
  return count * element_bytes;
}

// count elements of memory of `Kind`, owned: moves, never copies; taken with allocate() and freed with release().
// The owner under device_buffer, pinned_buffer and managed_buffer.
template <class T, memory_kind Kind>
class owned_elements {
 public:
  owned_elements(const owned_elements&) = delete;
  owned_elements& operator=(const owned_elements&) = delete;
  owned_elements(owned_elements&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  owned_elements& operator=(owned_elements&& other) noexcept {
    if (this != &other) {
      release(Kind, data_, count_ * sizeof(T));
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~owned_elements() { release(Kind, data_, count_ * sizeof(T)); }

  [[nodiscard]] T* data() const noexcept { return data_; }
  // 0 once moved from: the count belongs to the memory.
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] std::span<T> span() const noexcept { return {data(), size()}; }

 protected:
  owned_elements() = default;
  owned_elements(std::size_t count, const char* who, unsigned int flags)
      : data_(static_cast<T*>(allocate(Kind, bytes_of(count, sizeof(T), who), who, flags))), count_(count) {}

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};
}  // namespace detail
}  // namespace ksync::cuda
