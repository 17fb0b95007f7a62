// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// main() of the plain MPI tests (halo_test.cpp, failure_alarm_test.cpp): MPI and GoogleTest, no Kokkos, no CUDA.
#include "exit_status.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  // Errors come back as codes (KSYNC_MPI_CHECK turns them into exceptions) instead of aborting the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ::testing::InitGoogleTest(&argc, argv);
  const int status = ksync::test::agreed_exit_status(RUN_ALL_TESTS());
  MPI_Finalize();
  return status;
}
