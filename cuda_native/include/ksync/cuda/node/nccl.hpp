// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::node's NCCL: the engine between processes (one GPU per MPI rank) and as the vendor baseline between the
// GPUs of one node. This header needs no nccl.h: ksync is built with NCCL when CMake finds it
// (has_nccl() says whether it was); without it every call here throws std::invalid_argument saying so.
//
//   nccl_communicator::unique_id()       on one process; share the bytes with the others (ksync/cuda/node/
//                                        mpi.hpp does it with MPI_Bcast);
//   nccl_communicator(id, ranks, rank)   this process's member, on the current CUDA device;
//   reduce(comm, stream, data, n, op, result)
//                                        asynchronous, device-resident: ksync::cuda::reduce of this rank's n
//                                        elements into result, then an NCCL all-reduce of result in place on
//                                        the same stream, so every rank's result holds the global value.
#pragma once

#include <ksync/cuda/node/device_group.hpp>
#include <ksync/cuda/value_types.hpp>
#include <ksync/halo.hpp>
#include <ksync/types.hpp>

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace ksync::cuda::node {

class nccl_communicator {
 public:
  using id_bytes = std::array<char, 128>;  // NCCL_UNIQUE_ID_BYTES
  [[nodiscard]] static id_bytes unique_id();
  // Collective over the `ranks` processes: each passes the same id and its own rank in [0, ranks).
  nccl_communicator(const id_bytes& id, int ranks, int rank);
  nccl_communicator(nccl_communicator&&) noexcept;
  nccl_communicator& operator=(nccl_communicator&&) noexcept;
  ~nccl_communicator();

  [[nodiscard]] int ranks() const noexcept { return ranks_; }
  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] void* native_handle() const noexcept;  // the ncclComm_t; null once aborted
  // A number no other communicator of this process has had (never 0): what a distributed matrix keeps to know
  // which communicator its ranks were connected through (ksync::cuda::mpi::cg's NCCL form).
  [[nodiscard]] std::uint64_t serial() const noexcept { return serial_; }

  // Ends the communicator at once (ncclCommAbort): operations still in flight on any stream, waiting for a rank
  // that will never join them, end unfinished. Every rank of a distributed solve whose rank failed does this
  // (ksync::cuda::mpi::cg's NCCL form); every later use of this communicator is refused, saying so (ksync's
  // NCCL calls throw std::invalid_argument, the distributed CG collective_error on every rank): make another.
  void abort() noexcept;
  [[nodiscard]] bool aborted() const noexcept { return aborted_; }

 private:
  std::unique_ptr<detail::nccl_state, detail::nccl_state_deleter> state_;
  int ranks_ = 0;
  int rank_ = 0;
  std::uint64_t serial_ = 0;
  bool aborted_ = false;
};

}  // namespace ksync::cuda::node

namespace ksync::cuda::detail {
// NCCL all-reduce of one value per rank, in place, on each rank's stream of the group.
template <class T>
void nccl_all_reduce_in_place(node::device_group& group, std::span<T* const> buffers, reduce_op op);
template <class T>
void nccl_all_reduce_in_place(const node::nccl_communicator& comm, cudaStream_t stream, T* data, std::size_t count,
                              reduce_op op);
// The halo of a distributed product through NCCL on `stream` (ksync::cuda::mpi::cg's NCCL form): one group of
// an ncclRecv of each source rank's ghosts into `ghosts` and an ncclSend of each target rank's entries from
// `packed` (both device memory, in the plan's order; ksync/halo.hpp). Float and double.
template <class T>
void nccl_exchange_halo(const node::nccl_communicator& comm, cudaStream_t stream, const halo_plan& plan,
                        const T* packed, T* ghosts);
}  // namespace ksync::cuda::detail

namespace ksync::cuda::node {

template <class T>
void reduce(const nccl_communicator& comm, cudaStream_t stream, const T* data, std::size_t n, reduce_op op, T* result);

}  // namespace ksync::cuda::node
