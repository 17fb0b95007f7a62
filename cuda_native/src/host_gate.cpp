// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/detail/driver_entry.hpp>
#include <ksync/cuda/host_gate.hpp>

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace ksync::cuda {
namespace {

std::atomic<bool> wait_value_refused{false};  // a driver that lists it but refuses it: no gate from then on

// Whether a launch may wait for its kernel to finish, and so for a held stream: every launch under
// CUDA_LAUNCH_BLOCKING; a tool injected into CUDA (compute-sanitizer, Nsight Compute, Nsight Systems: they set
// CUDA_INJECTION64_PATH) may hold a launch until it has checked or profiled the kernel. No gate is used then.
bool launches_may_block() {
  static const bool blocking = [] {
    const char* blocking_launches = std::getenv("CUDA_LAUNCH_BLOCKING");
    const char* injected_tool = std::getenv("CUDA_INJECTION64_PATH");
    return (blocking_launches != nullptr && *blocking_launches != '\0' && std::string_view(blocking_launches) != "0") ||
           (injected_tool != nullptr && *injected_tool != '\0');
  }();
  return blocking;
}

}  // namespace

host_gate::host_gate() : word_(1, cudaHostAllocPortable | cudaHostAllocMapped, "ksync::cuda::host_gate") {
  std::atomic_ref<std::uint32_t>(*word_.data()).store(0, std::memory_order_release);
}

bool host_gate::hold(cudaStream_t stream) {
  if (held_)
    throw std::logic_error("ksync::cuda::host_gate::hold: the gate is already held (open() it before holding again)");
  const auto wait_value = detail::stream_wait_value32();
  if (wait_value == nullptr || launches_may_block() || wait_value_refused.load(std::memory_order_relaxed)) return false;
  // GEQ compares cyclically ((int32_t)(word - epoch) >= 0), so the count may wrap.
  const std::uint32_t next = epoch_ + 1;
  if (wait_value(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(word_.data()), next,
                 CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS) {
    wait_value_refused.store(true, std::memory_order_relaxed);
    return false;
  }
  epoch_ = next;
  held_ = true;
  return true;
}

void host_gate::open() noexcept {
  if (!held_) return;
  // Release: the host's earlier stores (the ghosts MPI wrote, say) are visible before the word that opens the gate.
  std::atomic_ref<std::uint32_t>(*word_.data()).store(epoch_, std::memory_order_release);
  held_ = false;
}

}  // namespace ksync::cuda
