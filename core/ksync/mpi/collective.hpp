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
#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
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
// failing rank r (problems are cut at 480 characters; a problem that begins with "<where>: ", as a local
// argument check's message does, loses that beginning instead of naming `where` twice).
inline void check_collectively(MPI_Comm comm, bool ok, const std::string& where, const std::string& problem) {
  const int rank = rank_of(comm);
  const int mine = ok ? INT_MAX : rank;
  int failing = INT_MAX;
  KSYNC_MPI_CHECK(MPI_Allreduce(&mine, &failing, 1, MPI_INT, MPI_MIN, comm));
  if (failing == INT_MAX) return;
  std::array<char, 481> text{};
  if (rank == failing) {
    std::string_view told = problem;
    if (const std::string prefix = where + ": "; told.starts_with(prefix)) told.remove_prefix(prefix.size());
    std::memcpy(text.data(), told.data(), std::min(told.size(), text.size() - 1));
  }
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

// What failed on this rank since the last global sum of a collective solve. A rank whose own work throws
// (a kernel, a fence, an allocation) must not leave the others waiting in an exchange or a sum it no longer
// reaches: its local steps run as `if (!failure.failed()) try { ... } catch (...) { failure.hold(); }` (a
// try block, not a callback: nvcc takes device lambdas only in a named function), so it skips its remaining
// local work but still takes part in every exchange and sum up to the next sum, which carries the failure to
// every rank (check_everywhere).
class local_failure {
 public:
  // Called in a catch block: holds the exception being handled.
  void hold() noexcept {
    error_ = std::current_exception();
    try {
      std::rethrow_exception(error_);
    } catch (const std::exception& error) {
      what_ = *error.what() != '\0' ? error.what() : "an exception without a message";
    } catch (...) {
      what_ = "an exception that is not a std::exception";
    }
  }
  [[nodiscard]] bool failed() const noexcept { return error_ != nullptr; }
  // Where only this rank's own communication was at stake (ksync::mpi::spmv): throw what was held, as it was.
  void rethrow_here() const {
    if (failed()) std::rethrow_exception(error_);
  }
  // Collective: returns where no rank of comm failed; otherwise every rank throws collective_error naming
  // the lowest failing rank and its message, `when` saying where in the solve it happened.
  void check_everywhere(MPI_Comm comm, const char* where, const std::string& when) const {
    check_collectively(comm, !failed(), where, failed() ? when + ": " + what_ : std::string());
  }

 private:
  std::exception_ptr error_;
  std::string what_;
};

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

namespace detail {
// Collective over comm: ask(node, &value) on the communicator of the ranks of comm that share this one's node
// (MPI_Comm_rank or MPI_Comm_size), which is freed again.
inline int ask_node(MPI_Comm comm, int (*ask)(MPI_Comm, int*)) {
  MPI_Comm node = MPI_COMM_NULL;
  KSYNC_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank_of(comm), MPI_INFO_NULL, &node));
  int value = 0;
  const int status = ask(node, &value);
  MPI_Comm_free(&node);
  KSYNC_MPI_CHECK(status);
  return value;
}
}  // namespace detail

// Node-local rank: this process's position among the ranks of comm that share its node. Collective.
[[nodiscard]] inline int local_rank(MPI_Comm comm) {
  return detail::ask_node(comm, &MPI_Comm_rank);
}

// How many ranks of comm share this process's node. Collective.
[[nodiscard]] inline int local_size(MPI_Comm comm) {
  return detail::ask_node(comm, &MPI_Comm_size);
}

}  // namespace ksync::mpi
