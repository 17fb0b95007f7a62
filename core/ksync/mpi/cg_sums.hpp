// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The global sums of a conjugate-gradient solve across the ranks of a communicator, shared by both halves
// (ksync::mpi::cg, ksync::cuda::mpi::cg): plain MPI and the scalar steps of ksync/cg_types.hpp.
//
//   sum_over_ranks(comm, where, local, failure, it)  one blocking MPI_Allreduce of a few sums, carrying a
//                                                     failure count (local_failure, ksync/mpi/collective.hpp):
//                                                     where any rank failed since the last sum, every rank
//                                                     throws collective_error naming it;
//   sums_in_flight(comm, local)                       the same through MPI_Iallreduce, waited for later (the
//                                                     pipelined recurrence);
//   started(comm, where, local, failure, options, ...) the start's sums and its scalar step (cg_start);
//   check_options_agree(comm, where, options)         the options that steer the iteration, equal on every rank.
// Every rank computes the scalars from the same sums, so all ranks stop together.
#pragma once

#include <ksync/cg_types.hpp>
#include <ksync/mpi/collective.hpp>

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

namespace ksync::mpi::detail {

// Where in a solve a global sum comes: the start, or the iteration it belongs to.
inline std::string sum_of(int iteration) {
  return iteration < 0 ? std::string("the start") : "iteration " + std::to_string(iteration);
}

// `local` with one more value, 1 where this rank failed since the last sum (local_failure), else 0: summed
// over the ranks it says whether any did.
template <class T, int Count>
std::array<T, Count + 1> with_failure_count(const std::array<T, Count>& local, const local_failure& failure) {
  std::array<T, Count + 1> flagged{};
  std::copy(local.begin(), local.end(), flagged.begin());
  flagged[Count] = failure.failed() ? T(1) : T(0);
  return flagged;
}

// The sums (all but the last value of `global`) where no rank failed; otherwise every rank throws
// collective_error with the failing rank's message (one more collective, on every rank, since every rank
// sees the same count).
template <class T, int Count>
std::array<T, Count - 1> sums_unless_failed(MPI_Comm comm, const char* where, const std::array<T, Count>& global,
                                            const local_failure& failure, int iteration) {
  if (global[Count - 1] != T(0)) failure.check_everywhere(comm, where, sum_of(iteration));
  std::array<T, Count - 1> sums{};
  std::copy(global.begin(), global.end() - 1, sums.begin());
  return sums;
}

// The sums of one MPI_Allreduce, element-wise over the ranks, and whether any rank failed since the last one
// (then every rank throws, at this sum, which every rank reaches).
template <class T, int Count>
std::array<T, Count> sum_over_ranks(MPI_Comm comm, const char* where, const std::array<T, Count>& local,
                                    const local_failure& failure, int iteration) {
  const auto flagged = with_failure_count<T, Count>(local, failure);
  std::array<T, Count + 1> global{};
  KSYNC_MPI_CHECK(MPI_Allreduce(flagged.data(), global.data(), Count + 1, datatype<T>(), MPI_SUM, comm));
  return sums_unless_failed<T, Count + 1>(comm, where, global, failure, iteration);
}

// The start's global sums (r . M^-1 r, b . M^-1 b, the diagonal's check and, pipelined, w . M^-1 r) in one
// MPI_Allreduce, and the start's scalar step on them.
template <class T, int Count>
ksync::detail::cg_scalars<T> started(MPI_Comm comm, const char* where, const std::array<T, Count>& local,
                                     const local_failure& failure, const cg_options& options, int first_iteration,
                                     double* history) {
  static_assert(Count == 3 || Count == 4, "the classic start sums three values, the pipelined one four");
  const auto sums = sum_over_ranks<T, Count>(comm, where, local, failure, -1);
  ksync::detail::cg_scalars<T> s;
  s.rho = sums[0];
  s.rho_next = sums[1];
  s.p_ap = sums[2];
  if constexpr (Count == 4) s.delta = sums[3];
  ksync::detail::cg_start(s,
                          {.tolerance = options.tolerance,
                           .max_iterations = options.max_iterations,
                           .first_iteration = first_iteration,
                           .preconditioned = options.preconditioner == cg_preconditioner::jacobi,
                           .pipelined = Count == 4},
                          history);
  return s;
}

// The sums of an MPI_Iallreduce in flight: its buffers live here until wait() returns the global sums.
template <class T, int Count>
class sums_in_flight {
 public:
  sums_in_flight(MPI_Comm comm, const std::array<T, Count>& local) : local_(local) {
    KSYNC_MPI_CHECK(MPI_Iallreduce(local_.data(), global_.data(), Count, datatype<T>(), MPI_SUM, comm, &request_));
  }
  sums_in_flight(const sums_in_flight&) = delete;
  sums_in_flight& operator=(const sums_in_flight&) = delete;
  ~sums_in_flight() {
    if (request_ != MPI_REQUEST_NULL) MPI_Wait(&request_, MPI_STATUS_IGNORE);  // unwinding: the buffers must outlive it
  }
  std::array<T, Count> wait() {
    KSYNC_MPI_CHECK(MPI_Wait(&request_, MPI_STATUS_IGNORE));
    return global_;
  }

 private:
  std::array<T, Count> local_;
  std::array<T, Count> global_{};
  MPI_Request request_ = MPI_REQUEST_NULL;
};

// Collective: every rank must iterate alike, so the options that steer the iteration must agree; where one
// differs, every rank throws collective_error naming it and its range.
inline void check_options_agree(MPI_Comm comm, const char* where, const cg_options& options) {
  check_same_everywhere(comm, where, "options.tolerance", options.tolerance);
  check_same_everywhere(comm, where, "options.max_iterations", options.max_iterations);
  check_same_everywhere(comm, where, "options.preconditioner", static_cast<std::int64_t>(options.preconditioner));
  check_same_everywhere(comm, where, "options.check_true_residual", std::int64_t{options.check_true_residual});
  check_same_everywhere(comm, where, "options.recurrence", static_cast<std::int64_t>(options.recurrence));
}

}  // namespace ksync::mpi::detail
