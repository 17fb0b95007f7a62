// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A rank's alarm to the others when its own work fails while they may be waiting on their GPUs for it.
// Where a solve's sums and exchanges all run on the GPUs (ksync::cuda::mpi::cg's NCCL form), no MPI call comes
// between one rank's failure and the others' next wait: their kernels wait inside NCCL for the failed rank's
// sends, and their hosts wait for those kernels. So the failed rank raises the alarm, an empty message to every
// other rank on a communicator of the alarm's own, and every wait of the others asks now and then whether one
// came (heard()); a rank that hears it stops waiting and aborts its NCCL communicator, which ends the kernels
// still waiting in it. Every use ends in settle(), collective, which takes in every alarm raised, so none is
// left over for the next use. Plain MPI (no CUDA, no Kokkos), so it runs and is tested on CPU ranks.
//
//   failure_alarm alarm(comm);  collective (MPI_Comm_dup of comm)
//   alarm_of(comm)              collective the first time: comm's alarm, made once and kept with comm (an MPI
//                               attribute, freed with comm), so a solve does not pay for a duplicate each time
//   alarm.raise();              this rank failed: nonblocking empty sends to every other rank (once)
//   alarm.heard()               whether another rank has raised it (MPI_Iprobe: about a microsecond)
//   alarm.settle()              collective: how many ranks raised it; every alarm received, every send complete
#pragma once

#include <ksync/mpi/collective.hpp>

#include <mpi.h>

#include <memory>
#include <vector>

namespace ksync::mpi::detail {

class failure_alarm {
 public:
  explicit failure_alarm(MPI_Comm comm) {
    KSYNC_MPI_CHECK(MPI_Comm_dup(comm, &alarms_));
    rank_ = rank_of(alarms_);
    size_ = size_of(alarms_);
  }
  failure_alarm(const failure_alarm&) = delete;
  failure_alarm& operator=(const failure_alarm&) = delete;
  ~failure_alarm() {
    // Sends still pending only where settle() never ran (an MPI error took the solve first): let go of them.
    for (MPI_Request& request : sent_)
      if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
    if (alarms_ != MPI_COMM_NULL) MPI_Comm_free(&alarms_);
  }
  // The alarm of a communicator MPI frees only in MPI_Finalize (MPI_COMM_WORLD, MPI_COMM_SELF) leaves its own
  // communicator to MPI_Finalize too: freeing a communicator from inside MPI_Finalize is not allowed.
  void leave_communicator_to_finalize() noexcept { alarms_ = MPI_COMM_NULL; }

  // Raised from a catch block, so it throws nothing: a send MPI refuses is dropped (the rank's own failure is what
  // settle() and the caller's check report; a rank that misses the alarm then waits for that failure's effects).
  void raise() noexcept {
    if (raised_) return;
    raised_ = true;
    sent_.assign(static_cast<std::size_t>(size_), MPI_REQUEST_NULL);
    for (int other = 0; other < size_; ++other)
      if (other != rank_) (void)MPI_Isend(nullptr, 0, MPI_BYTE, other, tag, alarms_, &sent_[std::size_t(other)]);
    // Pushes the sends out now: the raising rank goes on to work that makes no MPI progress (aborting NCCL).
    int done = 0;
    (void)MPI_Testall(size_, sent_.data(), &done, MPI_STATUSES_IGNORE);
  }

  [[nodiscard]] bool raised() const noexcept { return raised_; }

  // Asked from inside waits and catch blocks, so it throws nothing: where MPI cannot answer, no alarm was heard.
  [[nodiscard]] bool heard() const noexcept {
    int arrived = 0;
    if (MPI_Iprobe(MPI_ANY_SOURCE, tag, alarms_, &arrived, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
    return arrived != 0;
  }

  // Collective. Every rank learns how many raised the alarm and receives the alarm of each other one, so the
  // communicator holds none afterwards; the alarm is ready to be raised again.
  int settle() {
    const int mine = raised_ ? 1 : 0;
    int raised_anywhere = 0;
    KSYNC_MPI_CHECK(MPI_Allreduce(&mine, &raised_anywhere, 1, MPI_INT, MPI_SUM, alarms_));
    for (int k = 0; k < raised_anywhere - mine; ++k)
      KSYNC_MPI_CHECK(MPI_Recv(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, tag, alarms_, MPI_STATUS_IGNORE));
    if (!sent_.empty()) KSYNC_MPI_CHECK(MPI_Waitall(size_, sent_.data(), MPI_STATUSES_IGNORE));
    sent_.clear();
    raised_ = false;
    return raised_anywhere;
  }

 private:
  static constexpr int tag = 1;
  MPI_Comm alarms_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  bool raised_ = false;
  std::vector<MPI_Request> sent_;
};

// comm's alarm, kept as an attribute of comm: made (collectively) by the first call on comm, freed when comm is.
// Every rank of comm must make its first call together, as every collective.
inline failure_alarm& alarm_of(MPI_Comm comm) {
  static const int keyval = [] {
    int made = MPI_KEYVAL_INVALID;
    const auto free_alarm = [](MPI_Comm freed, int, void* kept, void*) -> int {
      auto* const alarm = static_cast<failure_alarm*>(kept);
      if (freed == MPI_COMM_WORLD || freed == MPI_COMM_SELF) alarm->leave_communicator_to_finalize();
      delete alarm;  // NOLINT(cppcoreguidelines-owning-memory): the attribute owned it
      return MPI_SUCCESS;
    };
    KSYNC_MPI_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_alarm, &made, nullptr));
    return made;
  }();
  void* kept = nullptr;
  int found = 0;
  KSYNC_MPI_CHECK(MPI_Comm_get_attr(comm, keyval, static_cast<void*>(&kept), &found));  // MPI writes the pointer
  if (found != 0) return *static_cast<failure_alarm*>(kept);
  auto made = std::make_unique<failure_alarm>(comm);
  KSYNC_MPI_CHECK(MPI_Comm_set_attr(comm, keyval, made.get()));
  return *made.release();
}

}  // namespace ksync::mpi::detail
