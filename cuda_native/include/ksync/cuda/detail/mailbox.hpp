// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The fast way home for a value the host waits on (a blocking reduction, a solver's convergence check):
// post() enqueues on the stream a one-thread kernel that copies up to mailbox_bytes from device memory into
// mapped pinned host memory, fences at system scope and then writes the post's epoch beside them;
// wait() spins on that epoch from the host. Cheaper still, reserve() hands out the slot itself, for a kernel
// that writes its one result there directly (a store over the bus, device-visible mapped memory), and
// publish() enqueues the epoch behind it as a stream memory operation (cuStreamWriteValue32, which fences
// the stream's earlier writes first; a one-thread kernel where the driver does not offer it): one launch
// fewer than a copy kernel. No cudaMemcpyAsync and no cudaStreamSynchronize: the value is
// home as soon as the GPU wrote it, a few microseconds earlier than a copy and a stream synchronization
// (docs/solvers.md measures both). While it spins, wait() asks the stream whether it failed, so a kernel
// fault ends in ksync::cuda::cuda_error, never in an endless loop.
//
// Each stream's workspace holds two slots, used in turn: a caller may post once more before it waits on
// the previous post (a solver looks at batch b while batch b + 1 runs), never twice. As every blocking call
// on one stream, posts and waits on one stream come from one host thread at a time.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace ksync::cuda::detail {

inline constexpr std::size_t mailbox_bytes = 56;

// One slot of mapped pinned host memory: the value, then the epoch that says it has arrived.
struct alignas(64) mailbox_slot {
  unsigned char bytes[mailbox_bytes];
  std::uint32_t epoch;
};

struct mailbox_ticket {
  std::uint32_t epoch = 0;
};

// Enqueues on `stream`: bytes [source, source + bytes) of device memory travel to the next slot of
// `stream`'s mailbox once the work enqueued before has finished. bytes <= mailbox_bytes.
[[nodiscard]] mailbox_ticket post(cudaStream_t stream, const void* source, std::size_t bytes);

// The next slot of `stream`'s mailbox, for a kernel to write up to mailbox_bytes into (`value`, a device
// pointer to mapped host memory: plain stores only, no atomics over the bus); then publish() the ticket.
struct mailbox_reservation {
  mailbox_ticket ticket;
  void* value = nullptr;
};
[[nodiscard]] mailbox_reservation reserve(cudaStream_t stream);
// Enqueues on `stream` the reservation's epoch, behind every write enqueued before it.
void publish(cudaStream_t stream, const mailbox_reservation& reservation);

// Waits until `ticket`'s post has arrived and copies its bytes to `destination`. Throws cuda_error when
// the stream reports an error first.
void wait(cudaStream_t stream, mailbox_ticket ticket, void* destination, std::size_t bytes);

}  // namespace ksync::cuda::detail
