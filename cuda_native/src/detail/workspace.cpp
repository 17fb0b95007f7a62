// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/allocation.hpp>
#include <ksync/cuda/detail/workspace.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/mailbox.hpp>
#include <ksync/cuda/runtime.hpp>

#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>

namespace ksync::cuda::detail {
namespace {

using workspace_key = std::tuple<int, cudaStream_t, std::thread::id>;

// One allocation: the partials, then the ticket, the device result and the grid-barrier states, each on
// its own 256-byte line.
std::size_t partial_bytes_of(std::size_t partial_slots) {
  return (partial_slots * 8 + 255) / 256 * 256;
}
std::size_t device_bytes_of(std::size_t partial_slots) {
  return partial_bytes_of(partial_slots) + 768;
}
constexpr std::size_t mailbox_size = 2 * sizeof(mailbox_slot);

// Frees a workspace's memory when the process ends (the map below is destroyed before the CUDA runtime is
// torn down: it is made after the runtime's first call), so that a leak check sees nothing held.
struct workspace_release {
  void operator()(reduce_workspace* workspace) const noexcept {
    release(memory_kind::device, workspace->partials, device_bytes_of(workspace->partial_slots));
    release(memory_kind::pinned, workspace->mailbox, mailbox_size);
    delete workspace;
  }
};

reduce_workspace create_workspace(cudaStream_t stream, int device) {
  const device_guard on(device);
  reduce_workspace workspace;
  KSYNC_CUDA_CHECK(
      cudaDeviceGetAttribute(&workspace.max_blocks_per_multiprocessor, cudaDevAttrMaxBlocksPerMultiprocessor, device));
  workspace.partial_slots =
      static_cast<std::size_t>(workspace.max_blocks_per_multiprocessor) * multiprocessor_count(device);
  const std::size_t partial_bytes = partial_bytes_of(workspace.partial_slots);
  // Held by owners until the workspace is complete: a failure on the way frees what was taken. (A complete
  // workspace lives as long as the process: its entry is never removed.)
  const std::size_t device_bytes = device_bytes_of(workspace.partial_slots);
  const auto free_device = [device_bytes](void* memory) { release(memory_kind::device, memory, device_bytes); };
  std::unique_ptr<void, decltype(free_device)> device_part(
      allocate(memory_kind::device, device_bytes, "ksync::cuda workspace (reductions, mailbox)"), free_device);
  char* const base = static_cast<char*>(device_part.get());
  workspace.ticket = reinterpret_cast<unsigned int*>(base + partial_bytes);
  workspace.device_result = base + partial_bytes + 256;
  workspace.barrier_states = base + partial_bytes + 512;
  // The ticket and the barrier states start at 0. On the workspace's own stream, which orders every later
  // use: a cudaMemset (legacy stream, asynchronous to the host for device memory) would not be ordered
  // before kernels on a non-blocking stream.
  KSYNC_CUDA_CHECK(cudaMemsetAsync(base, 0, device_bytes, stream));
  // The mailbox: mapped (the GPU writes it directly), zeroed (epoch 0 is never posted).
  const auto free_pinned = [](void* memory) { release(memory_kind::pinned, memory, mailbox_size); };
  std::unique_ptr<void, decltype(free_pinned)> mailbox_part(
      allocate(memory_kind::pinned, mailbox_size, "ksync::cuda workspace (reductions, mailbox)",
               cudaHostAllocMapped | cudaHostAllocPortable),
      free_pinned);
  void* const slots = mailbox_part.get();
  std::memset(slots, 0, mailbox_size);
  // Kernels write the slots through the host address (reserve()): unified addressing, as on every 64-bit
  // platform CUDA 13 supports, makes it the device address too.
  void* device_address = nullptr;
  KSYNC_CUDA_CHECK(cudaHostGetDevicePointer(&device_address, slots, 0));
  check_argument(device_address == slots, "ksync::cuda", "mapped host memory has a device address (", device_address,
                 ") other than its host address (", slots, "): unified addressing is required");
  // Complete: the workspace owns both from here.
  workspace.partials = device_part.release();
  workspace.mailbox = static_cast<mailbox_slot*>(mailbox_part.release());
  return workspace;
}

}  // namespace

const reduce_workspace& stream_workspace(cudaStream_t stream) {
  const int device = stream_device(stream);
  // The per-thread default stream is a different stream on every host thread, under one handle.
  const std::thread::id owner = stream == cudaStreamPerThread ? std::this_thread::get_id() : std::thread::id{};
  const workspace_key key{device, stream, owner};
  // One lookup per thread and stream in a row skips the lock; entries are never removed, so the cached
  // pointer stays valid.
  thread_local workspace_key last_key{-1, nullptr, std::thread::id{}};
  thread_local const reduce_workspace* last_workspace = nullptr;
  if (last_workspace != nullptr && key == last_key) return *last_workspace;

  static std::mutex guard;
  static std::map<workspace_key, std::unique_ptr<reduce_workspace, workspace_release>> workspaces;
  const std::lock_guard<std::mutex> lock(guard);
  auto& slot = workspaces[key];
  if (!slot) slot.reset(new reduce_workspace(create_workspace(stream, device)));
  last_key = key;
  last_workspace = slot.get();
  return *slot;
}

}  // namespace ksync::cuda::detail
