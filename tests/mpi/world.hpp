// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// This rank and the number of ranks of MPI_COMM_WORLD, for the MPI tests.
#pragma once

#include <ksync/mpi/collective.hpp>

#include <mpi.h>

namespace ksync::test {

struct world_place {
  int rank;
  int size;
};

inline world_place world() {
  return {.rank = ksync::mpi::rank_of(MPI_COMM_WORLD), .size = ksync::mpi::size_of(MPI_COMM_WORLD)};
}

}  // namespace ksync::test
