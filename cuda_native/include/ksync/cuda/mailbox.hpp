// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The fast way home for a value the host waits on (a blocking reduction, a solver's convergence check):
// mailbox::post() enqueues on the stream a one-thread kernel that copies up to mailbox::capacity bytes from device
// memory into mapped pinned host memory, fences at system scope and then writes the post's epoch beside them; wait()
// spins on that epoch from the host. Cheaper still, reserve() hands out the slot itself, for a kernel that writes its
// one result there directly (a store over the bus, device-visible mapped memory), and publish() enqueues the epoch
// behind it as a stream memory operation (cuStreamWriteValue32, which fences the stream's earlier writes first; a
// one-thread kernel where the driver does not offer it): one launch fewer than a copy kernel. Cheapest, a kernel that
// writes the value can publish the epoch itself (receive_published(): the value, a system-scope fence, the epoch),
// and the stream memory operation goes too. No cudaMemcpyAsync and no cudaStreamSynchronize: the value is home as
// soon as the GPU wrote it, a few microseconds earlier than a copy and a stream synchronization (docs/reductions.md
// measures each way). While it spins, wait() asks the stream whether it failed, so a kernel fault ends in
// ksync::cuda::cuda_error, never in an endless loop. The kernel that stored an epoch may still be retiring when
// the host sees it; on a device without concurrent managed access, where the host may not touch managed memory
// while a kernel runs, every wait therefore also waits for the stream (cudaStreamSynchronize), so that it
// returns with this stream idle.
//
// Each stream's workspace holds two slots, used in turn: a caller may post once more before it waits on
// the previous post (a solver looks at batch b while batch b + 1 runs), never twice. As every blocking call
// on one stream, posts and waits on one stream come from one host thread at a time.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace ksync::cuda::mailbox {

// The most bytes one post carries (a slot, with its epoch, fills two 64-byte lines).
inline constexpr std::size_t capacity = 120;

// What a post returns and a wait takes: which of the stream's posts to wait for.
struct ticket {
  std::uint32_t epoch = 0;
};

// Enqueues on `stream`: bytes [source, source + bytes) of device memory travel to the next slot of
// `stream`'s mailbox once the work enqueued before has finished. Throws std::invalid_argument for
// bytes > capacity.
[[nodiscard]] ticket post(cudaStream_t stream, const void* source, std::size_t bytes);

// Where a kernel publishes a slot itself: once the value is written, a system-scope fence
// (__threadfence_system()) and then `value` stored at `address` (mapped host memory), so that a host that sees
// the epoch sees the value too. What publish() enqueues, done by the kernel that wrote the value.
struct device_epoch {
  std::uint32_t* address = nullptr;
  std::uint32_t value = 0;
};

// The next slot of `stream`'s mailbox, for a kernel to write up to `capacity` bytes into (`value`, a device
// pointer to mapped host memory: plain stores only, no atomics over the bus); then publish() it, or have the
// kernel store `epoch` itself. `epoch.value` is the reservation's ticket.
struct reservation {
  void* value = nullptr;
  device_epoch epoch;
  // Set where the host may not touch managed memory while a kernel runs (a device without
  // cudaDevAttrConcurrentManagedAccess): a kernel that stores its own epoch may still be running when the host
  // sees it, so wait_reserved() then waits for this stream too, and a blocking call returns with it idle.
  bool wait_for_stream = false;
};
[[nodiscard]] reservation reserve(cudaStream_t stream);

// Enqueues on `stream` the reservation's epoch, behind every write enqueued before it.
void publish(cudaStream_t stream, const reservation& reserved);

// Waits until the post of `posted` has arrived and copies its bytes to `destination` (and, on a device without
// concurrent managed access, for the stream: see the top of this file). Throws cuda_error when the stream
// reports an error first.
void wait(cudaStream_t stream, ticket posted, void* destination, std::size_t bytes);
// The same, calling `meanwhile()` now and then while the post has not arrived (every few microseconds, where
// the stream's errors are asked for): it may throw to stop waiting, as a distributed solver does when another
// rank has failed (ksync/mpi/failure_alarm.hpp). The post still arrives later; the caller may not post twice more.
void wait(cudaStream_t stream, ticket posted, void* destination, std::size_t bytes,
          const std::function<void()>& meanwhile);

// wait() for a reservation: the slot is the reservation's own, so the stream's workspace is not looked up again.
// Where reserved.wait_for_stream, it also waits for `stream` to finish its work.
void wait_reserved(cudaStream_t stream, const reservation& reserved, void* destination, std::size_t bytes);

// A value of type T written straight into the mailbox: `write(slot)` enqueues on `stream` the work that
// stores it, with plain stores, at `slot` (mapped host memory); returns it once it has arrived.
template <class T, class Write>
T receive(cudaStream_t stream, Write&& write) {
  static_assert(sizeof(T) <= capacity, "ksync::cuda::mailbox::receive: T must fit one mailbox slot");
  const reservation slot = reserve(stream);
  write(static_cast<T*>(slot.value));
  publish(stream, slot);
  T value;
  wait_reserved(stream, slot, &value, sizeof(T));
  return value;
}

// The same, where the work publishes the value itself: `write(slot, epoch)` enqueues on `stream` the work that
// stores the value at `slot` and then the epoch as device_epoch says (fence first). Nothing else is enqueued.
template <class T, class Write>
T receive_published(cudaStream_t stream, Write&& write) {
  static_assert(sizeof(T) <= capacity, "ksync::cuda::mailbox::receive_published: T must fit one mailbox slot");
  const reservation slot = reserve(stream);
  write(static_cast<T*>(slot.value), slot.epoch);
  T value;
  wait_reserved(stream, slot, &value, sizeof(T));
  return value;
}

}  // namespace ksync::cuda::mailbox
