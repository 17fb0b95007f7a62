// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// How the NCCL form of ksync::cuda::mpi::cg stops waiting when another rank failed (private; needs MPI). Its ranks meet
// only inside NCCL on their GPUs, so a rank whose own work throws raises the failure alarm
// (ksync/mpi/failure_alarm.hpp), and every host wait of the others listens for it: the mailbox's waits (mailbox::wait's
// `meanwhile`) and the last stream synchronization. A rank that hears it throws another_rank_failed out of the wait;
// every rank then abandons the solve (its NCCL communicator aborted, which ends the kernels waiting in it for the
// failed rank) and settles the alarm, collectively.
#pragma once

#include <ksync/cuda/error.hpp>
#include <ksync/cuda/node/nccl.hpp>
#include <ksync/mpi/failure_alarm.hpp>

#include <cuda_runtime_api.h>

#include <chrono>
#include <functional>
#include <thread>

namespace ksync::cuda::detail::distributed {

// Thrown out of a wait once another rank's alarm was heard: this rank stops waiting for work that cannot finish.
struct another_rank_failed {};

// What a wait calls now and then: asks MPI whether the alarm came, at most every 20 microseconds (a probe costs
// about one; a healthy wait is not slowed by more than that).
inline std::function<void()> listen_for(const ksync::mpi::detail::failure_alarm& alarm) {
  return [&alarm, last = std::chrono::steady_clock::time_point{}]() mutable {
    const auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::microseconds(20)) return;
    last = now;
    if (alarm.heard()) throw another_rank_failed{};
  };
}

// Waits until `stream` has finished its work (throwing its error, as cudaStreamSynchronize would), listening.
inline void synchronize_listening(cudaStream_t stream, const std::function<void()>& listen) {
  for (;;) {
    const cudaError_t status = cudaStreamQuery(stream);
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) KSYNC_CUDA_CHECK(status);
    listen();
    std::this_thread::yield();
  }
}

// After a failure on some rank: this rank's NCCL communicator is aborted, which ends its kernels still waiting in
// NCCL for the failed rank, and its streams are drained, so that the work vectors can be freed. Errors here echo
// the failure (a failed rank's device may be unusable); they are not news and are dropped.
inline void abandon(node::nccl_communicator& nccl, cudaStream_t stream, cudaStream_t halo) noexcept {
  if (!nccl.aborted()) nccl.abort();
  (void)cudaStreamSynchronize(halo);
  (void)cudaStreamSynchronize(stream);
  (void)cudaGetLastError();
}

}  // namespace ksync::cuda::detail::distributed
