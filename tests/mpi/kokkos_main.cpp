// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The main of the MPI test binaries that use Kokkos: MPI around Kokkos around GoogleTest, on every rank.
#include "exit_status.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  // Errors come back as codes (KSYNC_MPI_CHECK turns them into exceptions) instead of aborting the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int status = 0;
  {
    const Kokkos::ScopeGuard kokkos(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    status = ksync::test::agreed_exit_status(RUN_ALL_TESTS());
  }
  MPI_Finalize();
  return status;
}
