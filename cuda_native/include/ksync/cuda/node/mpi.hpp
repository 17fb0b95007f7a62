// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One MPI rank per GPU: choosing each rank's GPU and joining the ranks' GPUs in an NCCL communicator. Link
// ksync::cuda_mpi (built when CMake finds MPI and a CUDA compiler). Both calls are collectives over comm.
//
//   select_device(comm)           makes GPU <node-local rank> current and returns it; a rank that has no GPU
//                                 of its own (none visible, or more ranks on its node than GPUs) makes every
//                                 rank throw ksync::mpi::collective_error naming that rank — no rank hangs;
//   make_nccl_communicator(comm)  rank 0 makes the NCCL id, MPI_Bcast shares it, every rank joins on its
//                                 current GPU; then ksync::cuda::node::reduce(communicator, stream, data, n, op,
//                                 result) (ksync/cuda/node/nccl.hpp) leaves the global value in every rank's
//                                 device memory without a host round trip.
#pragma once

#include <ksync/cuda/error.hpp>
#include <ksync/cuda/node/nccl.hpp>
#include <ksync/cuda/runtime.hpp>
#include <ksync/mpi/collective.hpp>

#include <mpi.h>

#include <cuda_runtime_api.h>

#include <exception>
#include <sstream>
#include <string>

namespace ksync::cuda::mpi {

inline int select_device(MPI_Comm comm) {
  const int local = ksync::mpi::local_rank(comm);
  const int visible = visible_device_count();
  std::ostringstream problem;
  if (visible == 0) {
    problem << "no CUDA GPU is visible to this process";
  } else if (local >= visible) {
    problem << "it is rank " << local << " of its node, whose " << visible
            << " visible GPU(s) already have a rank each: a rank without a GPU of its own";
  }
  ksync::mpi::check_collectively(comm, problem.str().empty(), "ksync::cuda::mpi::select_device", problem.str());
  KSYNC_CUDA_CHECK(cudaSetDevice(local));
  return local;
}

inline node::nccl_communicator make_nccl_communicator(MPI_Comm comm) {
  const int rank = ksync::mpi::rank_of(comm);
  node::nccl_communicator::id_bytes id{};
  std::string problem;
  if (rank == 0) {
    try {
      id = node::nccl_communicator::unique_id();
    } catch (const std::exception& error) {
      problem = error.what();
    }
  }
  ksync::mpi::check_collectively(comm, problem.empty(), "ksync::cuda::mpi::make_nccl_communicator", problem);
  KSYNC_MPI_CHECK(MPI_Bcast(id.data(), static_cast<int>(id.size()), MPI_CHAR, 0, comm));
  return {id, ksync::mpi::size_of(comm), rank};
}

}  // namespace ksync::cuda::mpi
