// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A gate the host opens for a stream: work enqueued behind hold() is already on the stream, but the GPU starts
// it only once the host has called open(). After a step the host must finish first (a halo exchange through MPI,
// say) the GPU then waits only until it sees the opening over the bus, not for a launch the host could make only
// then. No ksync operation uses one: behind the native distributed product's halo exchange it made the product
// slower on two ranks sharing an H100 (docs/multi-gpu.md). The mailbox (ksync/cuda/mailbox.hpp) carries values the
// other way, from a stream to the host.
//
//   ksync::cuda::host_gate gate;
//   const bool held = gate.hold(stream);   // a stream memory operation (cuStreamWaitValue32) on one pinned word
//   if (held) enqueue_what_follows(stream);
//   ... the host's step: every store it makes before open() is visible to the work behind the gate ...
//   gate.open();
//   if (!held) enqueue_what_follows(stream);
//
// hold() returns false, enqueueing nothing, where the driver offers no stream wait or refuses it, where
// CUDA_LAUNCH_BLOCKING is set (every launch would then wait for the held stream) and where a tool is injected into
// CUDA (CUDA_INJECTION64_PATH: compute-sanitizer and the Nsight tools, which may hold a launch until its kernel ends):
// the caller enqueues its work after the host step, as it would without a gate. A held stream stops there, so until
// open() the host must not wait for that stream nor for anything behind it: no fence or synchronization of it; no
// synchronizing call on the legacy default stream, which waits for every blocking stream (cudaMemcpy,
// cudaMemcpyToSymbol, ...); no allocation or deallocation that synchronizes the device (destroying a
// ksync::cuda::stream that ran ksync::cuda reductions is one: stream.hpp); and no first launch of a
// kernel, which under lazy module loading (the default since CUDA 12.2) may synchronize the context: launch what goes
// behind the gate once ungated first. host_gate::opening opens the gate when it leaves scope, so a host step that
// throws leaves no stream waiting forever; a gate destroyed while held opens first. One host thread at a time holds and
// opens a gate.
#pragma once

#include <ksync/cuda/host_memory.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ksync::cuda {

class host_gate {
 public:
  // One word of pinned host memory, on no particular device.
  host_gate();
  host_gate(const host_gate&) = delete;  // the held work waits on this gate's word: it stays where it is
  host_gate& operator=(const host_gate&) = delete;
  ~host_gate() { open(); }

  // Enqueues on `stream` a wait for the next open(): later work on `stream` starts only after it. Returns false,
  // enqueueing nothing, where no gate can hold it (above). Throws std::logic_error where the gate is already held
  // (one hold per opening).
  [[nodiscard]] bool hold(cudaStream_t stream);

  // Lets the work behind the last hold() start. Nothing where the gate is not held.
  void open() noexcept;

  [[nodiscard]] bool held() const noexcept { return held_; }

  // Opens `gate` when it leaves scope (ahead of that, open() may be called on the gate itself).
  class opening {
   public:
    explicit opening(host_gate& gate) noexcept : gate_(gate) {}
    opening(const opening&) = delete;
    opening& operator=(const opening&) = delete;
    ~opening() { gate_.open(); }

   private:
    host_gate& gate_;
  };

 private:
  pinned_buffer<std::uint32_t> word_;  // the last opening's epoch; the GPU waits for the next one
  std::uint32_t epoch_ = 0;
  bool held_ = false;
};

}  // namespace ksync::cuda
