// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How an MPI test executable ends, for CTest. One CTest test runs many GoogleTest tests there, so a skip message in
// its output cannot mark it skipped: CTest would then report the whole run skipped, a failure beside the skip
// included. Every rank returns the same status instead: 1 where any rank failed, 77 (the tests' SKIP_RETURN_CODE)
// where no test passed on any rank and at least one skipped, 0 otherwise.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

namespace ksync::test {

inline constexpr int skipped_exit_status = 77;

// Collective over MPI_COMM_WORLD, after RUN_ALL_TESTS (which returned `status`) and before MPI_Finalize.
inline int agreed_exit_status(int status) {
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  const int failed = status != 0 || unit.failed_test_count() > 0 ? 1 : 0;
  int mine[3] = {failed, unit.successful_test_count(), unit.skipped_test_count()};
  int all[3] = {1, 0, 0};  // where the sum itself fails, the run failed
  MPI_Allreduce(mine, all, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (all[0] > 0) return 1;
  return all[1] == 0 && all[2] > 0 ? skipped_exit_status : 0;
}

}  // namespace ksync::test
