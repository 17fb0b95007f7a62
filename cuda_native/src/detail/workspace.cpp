// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/detail/mailbox.hpp>
#include <ksync/cuda/detail/workspace.hpp>
#include <ksync/cuda/error.hpp>
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

reduce_workspace create_workspace(cudaStream_t stream, int device) {
  const device_guard on(device);
  reduce_workspace workspace;
  KSYNC_CUDA_CHECK(
      cudaDeviceGetAttribute(&workspace.max_blocks_per_multiprocessor, cudaDevAttrMaxBlocksPerMultiprocessor, device));
  workspace.partial_slots =
      static_cast<std::size_t>(workspace.max_blocks_per_multiprocessor) * multiprocessor_count(device);
  // One allocation: the partials, then the ticket, the device result and the grid-barrier states, each on
  // its own 256-byte line.
  const std::size_t partial_bytes = (workspace.partial_slots * 8 + 255) / 256 * 256;
  char* base = nullptr;
  KSYNC_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&base), partial_bytes + 768));
  workspace.partials = base;
  workspace.ticket = reinterpret_cast<unsigned int*>(base + partial_bytes);
  workspace.device_result = base + partial_bytes + 256;
  workspace.barrier_states = base + partial_bytes + 512;
  // The ticket and the barrier states start at 0. On the workspace's own stream, which orders every later
  // use: a cudaMemset (legacy stream, asynchronous to the host for device memory) would not be ordered
  // before kernels on a non-blocking stream.
  KSYNC_CUDA_CHECK(cudaMemsetAsync(base, 0, partial_bytes + 768, stream));
  // The mailbox: mapped (the GPU writes it directly), zeroed (epoch 0 is never posted).
  void* slots = nullptr;
  KSYNC_CUDA_CHECK(cudaHostAlloc(&slots, 2 * sizeof(mailbox_slot), cudaHostAllocMapped | cudaHostAllocPortable));
  std::memset(slots, 0, 2 * sizeof(mailbox_slot));
  // Kernels write the slots through the host address (reserve()): unified addressing, as on every 64-bit
  // platform CUDA 13 supports, makes it the device address too.
  void* device_address = nullptr;
  KSYNC_CUDA_CHECK(cudaHostGetDevicePointer(&device_address, slots, 0));
  check_argument(device_address == slots, "ksync::cuda", "mapped host memory has a device address (", device_address,
                 ") other than its host address (", slots, "): unified addressing is required");
  workspace.mailbox = static_cast<mailbox_slot*>(slots);
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
  static std::map<workspace_key, std::unique_ptr<reduce_workspace>> workspaces;
  const std::lock_guard<std::mutex> lock(guard);
  auto& slot = workspaces[key];
  if (!slot) slot = std::make_unique<reduce_workspace>(create_workspace(stream, device));
  last_key = key;
  last_workspace = slot.get();
  return *slot;
}

}  // namespace ksync::cuda::detail
