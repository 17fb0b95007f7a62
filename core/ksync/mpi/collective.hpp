// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Errors that every rank sees. A check that fails on one rank must not leave the others waiting in a
// collective that rank will never join: check_collectively is itself a collective — every rank calls it, and
// when any rank's check failed every rank throws ksync::mpi::collective_error carrying the message of the
// lowest failing rank. Needs only <mpi.h> (no Kokkos), so both halves of ksync use it.
#pragma once

#include <mpi.h>
#include <ksync/detail/check_call.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace ksync::mpi {

class collective_error : public std::runtime_error {
 public:
  collective_error(int failing_rank, const std::string& message)
      : std::runtime_error(message), failing_rank_(failing_rank) {}
  [[nodiscard]] int failing_rank() const noexcept { return failing_rank_; }

 private:
  int failing_rank_;
};

namespace detail {
[[noreturn]] inline void throw_mpi_error(int code, const char* call, const char* file, int line) {
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int length = 0;
  MPI_Error_string(code, text.data(), &length);
  std::ostringstream message;
  message << call << " failed: " << std::string(text.data(), static_cast<std::size_t>(length)) << " at " << file << ':'
          << line;
  throw std::runtime_error(message.str());
}
}  // namespace detail

// Checks an MPI call (for communicators whose error handler returns errors; MPI's default aborts instead).
#define KSYNC_MPI_CHECK(call) KSYNC_DETAIL_CHECK_CALL(call, MPI_SUCCESS, ::ksync::mpi::detail::throw_mpi_error)

[[nodiscard]] inline int rank_of(MPI_Comm comm) {
  int rank = 0;
  KSYNC_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  return rank;
}
[[nodiscard]] inline int size_of(MPI_Comm comm) {
  int size = 0;
  KSYNC_MPI_CHECK(MPI_Comm_size(comm, &size));
  return size;
}

// Collective: every rank of comm calls it with its own verdict. Returns when every rank is fine; otherwise
// every rank throws collective_error("<where>: rank <r> of <size>: <problem of rank r>") for the lowest
// failing rank r (problems are cut at 480 characters).
inline void check_collectively(MPI_Comm comm, bool ok, const std::string& where, const std::string& problem) {
  const int rank = rank_of(comm);
  const int mine = ok ? INT_MAX : rank;
  int failing = INT_MAX;
  KSYNC_MPI_CHECK(MPI_Allreduce(&mine, &failing, 1, MPI_INT, MPI_MIN, comm));
  if (failing == INT_MAX) return;
  std::array<char, 481> text{};
  if (rank == failing) std::memcpy(text.data(), problem.data(), std::min(problem.size(), text.size() - 1));
  KSYNC_MPI_CHECK(MPI_Bcast(text.data(), static_cast<int>(text.size()), MPI_CHAR, failing, comm));
  std::ostringstream message;
  message << where << ": rank " << failing << " of " << size_of(comm) << ": " << text.data();
  throw collective_error(failing, message.str());
}

// The MPI datatype of the values ksync moves and reduces.
template <class T>
[[nodiscard]] MPI_Datatype datatype() {
  static_assert(std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> || std::is_same_v<T, float> ||
                    std::is_same_v<T, double>,
                "ksync::mpi supports int32, int64, float and double");
  if constexpr (std::is_same_v<T, std::int32_t>) return MPI_INT32_T;
  if constexpr (std::is_same_v<T, std::int64_t>) return MPI_INT64_T;
  if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  return MPI_DOUBLE;
}

namespace detail {
// Every rank learns the smallest and largest of one number: equal on every rank when both agree.
template <class V>
std::pair<V, V> spread(MPI_Comm comm, V mine) {
  V low{};
  V high{};
  KSYNC_MPI_CHECK(MPI_Allreduce(&mine, &low, 1, datatype<V>(), MPI_MIN, comm));
  KSYNC_MPI_CHECK(MPI_Allreduce(&mine, &high, 1, datatype<V>(), MPI_MAX, comm));
  return {low, high};
}

// Collective check that `mine` (a number of a type datatype() knows) is the same on every rank; `what` names
// it in the message.
template <class V>
void check_same_everywhere(MPI_Comm comm, const char* where, const char* what, V mine) {
  const auto [low, high] = spread(comm, mine);
  std::ostringstream problem;
  problem << what << " = " << mine << " here, but it ranges over [" << low << ", " << high
          << "] across the ranks; it must be equal on every rank";
  check_collectively(comm, low == high, where, problem.str());
}
}  // namespace detail

// Node-local rank: this process's position among the ranks of comm that share its node.
[[nodiscard]] inline int local_rank(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  KSYNC_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank_of(comm), MPI_INFO_NULL, &node));
  int rank = 0;
  const int status = MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  KSYNC_MPI_CHECK(status);
  return rank;
}

}  // namespace ksync::mpi
