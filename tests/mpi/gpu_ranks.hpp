// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Whether every rank of MPI_COMM_WORLD has a GPU of its own (its node-local rank below the visible count), for
// the native MPI tests: NCCL takes one GPU a rank.
#pragma once

#include <ksync/cuda/runtime.hpp>
#include <ksync/mpi/collective.hpp>

#include <mpi.h>

namespace ksync::test {

inline bool every_rank_has_a_gpu() {
  const int local = ksync::mpi::local_rank(MPI_COMM_WORLD);
  const int mine = local < ksync::cuda::visible_device_count() ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

}  // namespace ksync::test
