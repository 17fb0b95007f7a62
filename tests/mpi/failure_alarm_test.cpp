// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::mpi::detail::failure_alarm (ksync/mpi/failure_alarm.hpp) on however many ranks mpiexec starts (CTest: 1
// to 4): the alarm one rank raises reaches every other rank while they wait, settle() counts and takes in every
// alarm, and none is left over for the next use. Plain MPI and C++: no Kokkos.
#include <ksync/mpi/failure_alarm.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <thread>

namespace {

using ksync::mpi::detail::failure_alarm;

// Waits as a solver's host waits on its GPU, asking now and then; false where no alarm came within `limit`
// (a bound for the test alone: the waits of ksync's solvers have none, the alarm or the work ends them).
bool hears_within(const failure_alarm& alarm, std::chrono::seconds limit) {
  const auto start = std::chrono::steady_clock::now();
  while (!alarm.heard()) {
    if (std::chrono::steady_clock::now() - start > limit) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return true;
}

TEST(MpiFailureAlarm, ARaisedAlarmReachesEveryOtherRankAndIsTakenIn) {
  const int rank = ksync::mpi::rank_of(MPI_COMM_WORLD);
  const int size = ksync::mpi::size_of(MPI_COMM_WORLD);
  failure_alarm alarm(MPI_COMM_WORLD);
  for (int failing = 0; failing < size; ++failing) {  // each rank fails once, with the same alarm
    if (rank == failing) {
      alarm.raise();
      alarm.raise();  // a second raise sends nothing more
      EXPECT_TRUE(alarm.raised());
      EXPECT_FALSE(alarm.heard()) << "a rank does not hear its own alarm";
    } else {
      EXPECT_TRUE(hears_within(alarm, std::chrono::seconds(30))) << "rank " << rank << " never heard rank " << failing;
    }
    EXPECT_EQ(alarm.settle(), 1);
    EXPECT_FALSE(alarm.raised());
    // Between two barriers, so that no rank has raised the next round's alarm yet.
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_FALSE(alarm.heard()) << "settle() left an alarm behind";
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

TEST(MpiFailureAlarm, RanksThatFailTogetherAreCountedAndNoneIsLeftOver) {
  const int rank = ksync::mpi::rank_of(MPI_COMM_WORLD);
  const int size = ksync::mpi::size_of(MPI_COMM_WORLD);
  failure_alarm alarm(MPI_COMM_WORLD);
  if (rank % 2 == 0) alarm.raise();  // ranks 0, 2, ...
  const int raising = (size + 1) / 2;
  if (raising > (rank % 2 == 0 ? 1 : 0)) {  // another rank raised it
    EXPECT_TRUE(hears_within(alarm, std::chrono::seconds(30)));
  }
  EXPECT_EQ(alarm.settle(), raising);
  // The next use, where nobody fails: nothing of the last one is heard, and settle() counts none.
  EXPECT_FALSE(alarm.heard());
  EXPECT_EQ(alarm.settle(), 0);
}

TEST(MpiFailureAlarm, TheAlarmTravelsApartFromTheCommunicatorsOtherMessages) {
  const int rank = ksync::mpi::rank_of(MPI_COMM_WORLD);
  const int size = ksync::mpi::size_of(MPI_COMM_WORLD);
  failure_alarm alarm(MPI_COMM_WORLD);
  // An empty message on the caller's communicator, with the tag the alarm uses on its own, is no alarm.
  if (size > 1 && rank == 0) MPI_Send(nullptr, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
  if (size > 1 && rank == 1) {
    MPI_Recv(nullptr, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT_FALSE(alarm.heard());
  }
  EXPECT_EQ(alarm.settle(), 0);
}

// A rank that never asked (its work had finished when another rank failed) takes the alarm in at settle().
TEST(MpiFailureAlarm, ARankThatNeverAskedTakesTheAlarmInAtSettle) {
  const int rank = ksync::mpi::rank_of(MPI_COMM_WORLD);
  failure_alarm alarm(MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) alarm.raise();
  EXPECT_EQ(alarm.settle(), 1);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(alarm.heard());
}

// alarm_of keeps one alarm per communicator, apart from every other communicator's, and frees it with it.
TEST(MpiFailureAlarm, TheAlarmIsKeptWithItsCommunicator) {
  const int rank = ksync::mpi::rank_of(MPI_COMM_WORLD);
  const int size = ksync::mpi::size_of(MPI_COMM_WORLD);
  failure_alarm& world = ksync::mpi::detail::alarm_of(MPI_COMM_WORLD);
  EXPECT_EQ(&ksync::mpi::detail::alarm_of(MPI_COMM_WORLD), &world);
  MPI_Comm other = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &other), MPI_SUCCESS);
  failure_alarm& others = ksync::mpi::detail::alarm_of(other);
  EXPECT_NE(&others, &world);
  if (rank == 0) others.raise();
  if (size > 1 && rank == 1) {
    EXPECT_TRUE(hears_within(others, std::chrono::seconds(30)));
    EXPECT_FALSE(world.heard()) << "an alarm raised on one communicator was heard on another";
  }
  EXPECT_EQ(others.settle(), 1);
  EXPECT_EQ(world.settle(), 0);
  EXPECT_EQ(MPI_Comm_free(&other), MPI_SUCCESS);  // frees its alarm (the attribute's delete callback)
}

}  // namespace
