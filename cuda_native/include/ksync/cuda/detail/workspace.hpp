// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Per-stream scratch for ksync::cuda's single-launch reductions, the mailbox and persistent kernels. A workspace
// belongs to one stream, named by its id (cudaStreamGetId), never by its handle, which CUDA gives the next stream
// made even while the destroyed one's work still runs (cudaStreamPerThread has an id of its own on every host
// thread). So calls on different streams never share a ticket or partials, and calls on one stream are ordered by
// the stream itself. It is allocated (and zeroed) on the first call on that stream that needs it, then reused: a
// call costs no allocation. A ksync::cuda::stream frees its workspace when destroyed, after the stream's work has
// finished; the workspace of a stream ksync does not own (a raw handle, a Kokkos instance's, a host thread's
// cudaStreamPerThread) lives until the process ends. Each holds about 8 bytes per block the device can keep
// resident (some tens of KiB) and 256 bytes of pinned memory (the mailbox's two slots). A graph captured from
// ksync::cuda work on a ksync::cuda::stream points into its workspace: it must not outlive the stream.
#pragma once

#include <ksync/cuda/mailbox.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace ksync::cuda::detail {

// One slot of a stream's mailbox (ksync/cuda/mailbox.hpp), in mapped pinned host memory: the value, then
// the epoch that says it has arrived.
struct alignas(64) mailbox_slot {
  unsigned char bytes[mailbox::capacity];
  std::uint32_t epoch;
};

struct reduce_workspace {
  void* partials = nullptr;                 // partial_slots slots of 8 bytes (one per block or per cluster)
  std::size_t partial_slots = 0;            // = the device's resident-block limit x its multiprocessors
  unsigned int* ticket = nullptr;           // 0 between calls: the block that finishes a call resets it
  void* device_result = nullptr;            // 8 bytes: where blocking calls' kernels put the result
  void* barrier_states = nullptr;           // 256 bytes, zeroed once: the persistent kernels' grid-barrier states
  mailbox_slot* mailbox = nullptr;          // two slots of mapped pinned host memory (ksync/cuda/mailbox.hpp)
  mutable std::uint32_t mailbox_epoch = 0;  // the last post's epoch
  int max_blocks_per_multiprocessor = 0;
  bool concurrent_managed_access = false;  // cudaDevAttrConcurrentManagedAccess (mailbox.hpp's reservation)
  int device = -1;                         // the device that owns the stream, on which the release frees the memory
};

// The workspace of `stream` (on the device that owns it).
[[nodiscard]] const reduce_workspace& stream_workspace(cudaStream_t stream);

// Called by ksync::cuda::stream just before it destroys `stream`: if the stream has a workspace, waits for the
// stream's work and frees it.
void release_stream_workspace(cudaStream_t stream) noexcept;

}  // namespace ksync::cuda::detail
