// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The halo of a CSR matrix split among the ranks of an MPI communicator (ksync/halo.hpp has the partition and
// the plan): collectives that need only <mpi.h>, for both halves of ksync.
//
//   complete_sends(comm, partition, plan)   every rank tells each rank it reads from which of its rows it
//                                           needs; each rank's plan gains the send side (add_sends). Once
//                                           per matrix.
//   exchange(comm, plan, x)                 blocking, host memory: x holds plan.local_columns() values, the
//                                           rank's own first; each rank sends the values its neighbours
//                                           need and receives its ghosts into x[plan.owned ...].
//   halo_memory, choose_halo(...)           where a distributed product's halo travels (the device's own
//                                           memory, or pinned host memory), resolved collectively.
// All check their arguments collectively: a mistake on one rank makes every rank throw collective_error.
#pragma once

#include <ksync/halo.hpp>
#include <ksync/mpi/collective.hpp>
#include <ksync/strategy_rows.hpp>

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ksync::mpi {

namespace detail {
// Rank `rank`'s piece of a per-rank list given as offsets: [offsets[k], offsets[k + 1]) where ranks[k] == rank.
inline std::int64_t count_for(const std::vector<int>& ranks, const std::vector<std::int64_t>& offsets, int rank) {
  for (std::size_t k = 0; k < ranks.size(); ++k)
    if (ranks[k] == rank) return offsets[k + 1] - offsets[k];
  return 0;
}
// Posts the halo's messages of `plan`: a receive of each source rank's ghosts into `ghosts` (plan.ghosts.size()
// values, in the plan's order) and a send of each target rank's values from `packed` (plan.sends.size() values,
// in plan.sends' order). Both are host memory (or memory the MPI reads and writes); wait for the requests
// before touching either.
template <class T>
[[nodiscard]] std::vector<MPI_Request> post_halo(MPI_Comm comm, const halo_plan& plan, const T* packed, T* ghosts,
                                                 int tag) {
  const MPI_Datatype type = datatype<T>();
  std::vector<MPI_Request> requests;
  requests.reserve(plan.source_ranks.size() + plan.target_ranks.size());
  for (std::size_t s = 0; s < plan.source_ranks.size(); ++s) {
    requests.emplace_back();
    KSYNC_MPI_CHECK(MPI_Irecv(ghosts + plan.source_offsets[s],
                              static_cast<int>(plan.source_offsets[s + 1] - plan.source_offsets[s]), type,
                              plan.source_ranks[s], tag, comm, &requests.back()));
  }
  for (std::size_t t = 0; t < plan.target_ranks.size(); ++t) {
    requests.emplace_back();
    KSYNC_MPI_CHECK(MPI_Isend(packed + plan.target_offsets[t],
                              static_cast<int>(plan.target_offsets[t + 1] - plan.target_offsets[t]), type,
                              plan.target_ranks[t], tag, comm, &requests.back()));
  }
  return requests;
}
// Where a distributed product leaves x's ghosts: in x, as ksync::mpi::spmv and ksync::cuda::mpi::spmv promise, or
// where they arrived, the boundary rows reading them there: what the solvers ask (their product inputs' ghosts
// have no other reader), which saves the staged ghosts' copy into x and, on a GPU, the wait behind it.
enum class ghost_destination { x, where_they_arrive };

}  // namespace detail

// Collective over comm: completes the send side of every rank's `plan` (this rank's, from localize with
// rank_of(comm)). The partition must be the same on every rank and have one block per rank of comm.
inline void complete_sends(MPI_Comm comm, const row_partition& partition, halo_plan& plan) {
  constexpr const char* where = "ksync::mpi::complete_sends";
  const int rank = rank_of(comm);
  const int size = size_of(comm);
  detail::check_same_everywhere(comm, where, "partition.rows()", partition.rows());
  check_collectively(comm, partition.ranks() == size && plan.rank == rank && plan.target_ranks.empty(), where,
                     "partition.ranks() = " + std::to_string(partition.ranks()) + " and plan.rank = " +
                         std::to_string(plan.rank) + " must be comm's size " + std::to_string(size) + " and rank " +
                         std::to_string(rank) + ", and the plan must not have its send side yet");
  // How many ghosts this rank reads from each rank, and how many each rank reads from this one.
  std::vector<std::int64_t> asked(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r)
    asked[r] = detail::count_for(plan.source_ranks, plan.source_offsets, r);
  std::vector<std::int64_t> asked_of_me(static_cast<std::size_t>(size));
  KSYNC_MPI_CHECK(MPI_Alltoall(asked.data(), 1, MPI_INT64_T, asked_of_me.data(), 1, MPI_INT64_T, comm));
  std::vector<int> send_counts(static_cast<std::size_t>(size));
  std::vector<int> send_displacements(static_cast<std::size_t>(size));
  std::vector<int> receive_counts(static_cast<std::size_t>(size));
  std::vector<int> receive_displacements(static_cast<std::size_t>(size));
  std::int64_t sent = 0;
  std::int64_t received = 0;
  for (int r = 0; r < size; ++r) {
    send_displacements[r] = static_cast<int>(sent);
    receive_displacements[r] = static_cast<int>(received);
    send_counts[r] = static_cast<int>(asked[r]);
    receive_counts[r] = static_cast<int>(asked_of_me[r]);
    sent += asked[r];
    received += asked_of_me[r];
  }
  check_collectively(
      comm, sent <= INT_MAX && received <= INT_MAX, where,
      "a halo of " + std::to_string(sent > received ? sent : received) + " indices is more than one MPI call holds");
  // The ghosts are stored grouped by source rank in ascending order: they are the send buffer as they are.
  std::vector<std::int64_t> requests(static_cast<std::size_t>(received));
  KSYNC_MPI_CHECK(MPI_Alltoallv(plan.ghosts.data(), send_counts.data(), send_displacements.data(), MPI_INT64_T,
                                requests.data(), receive_counts.data(), receive_displacements.data(), MPI_INT64_T,
                                comm));
  std::string problem;
  try {
    for (int from = 0; from < size; ++from) {
      if (asked_of_me[from] == 0) continue;
      add_sends(partition, plan, from,
                std::span<const std::int64_t>(requests.data() + receive_displacements[from],
                                              static_cast<std::size_t>(asked_of_me[from])));
    }
  } catch (const std::invalid_argument& error) {
    problem = error.what();
  }
  try {
    check_collectively(comm, problem.empty(), where, problem);
  } catch (...) {
    // A request refused on any rank (the ranks' plans disagree) leaves no rank with a half-built send side.
    plan.target_ranks.clear();
    plan.target_offsets.clear();
    plan.sends.clear();
    throw;
  }
}

// Collective over comm, blocking: sends each neighbour the values of x it needs (plan.sends) and receives this
// rank's ghosts into x[plan.owned ...] in the plan's order. x is host memory of plan.local_columns() values.
template <class T>
void exchange(MPI_Comm comm, const halo_plan& plan, std::span<T> x) {
  static_assert(!std::is_const_v<T>, "ksync::mpi::exchange writes the ghosts into x");
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "ksync::mpi::exchange moves float or double");
  constexpr const char* where = "ksync::mpi::exchange";
  const bool fits = static_cast<std::int64_t>(x.size()) == plan.local_columns();
  check_collectively(comm, fits && plan.rank == rank_of(comm), where,
                     "x holds " + std::to_string(x.size()) + " values but the plan of rank " +
                         std::to_string(plan.rank) + " has " + std::to_string(plan.local_columns()) +
                         " local columns (or the plan is another rank's)");
  std::vector<T> packed(plan.sends.size());
  for (std::size_t k = 0; k < plan.sends.size(); ++k)
    packed[k] = x[static_cast<std::size_t>(plan.sends[k])];
  constexpr int tag = 4242;  // the halo's values; nothing else travels between the ranks meanwhile
  auto requests = detail::post_halo(comm, plan, packed.data(), x.data() + plan.owned, tag);
  KSYNC_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
}

// Where a distributed product's halo travels from and to (ksync::mpi::spmv, ksync::cuda::mpi::spmv):
//   direct     MPI reads the send buffer in the matrix's own memory and receives the ghosts straight there: no
//              host copy. What a GPU-aware MPI allows on a GPU (ksync/mpi/device_memory.hpp).
//   staged     both buffers in pinned host memory the device reads and writes: what an MPI that cannot read
//              device memory needs.
//   automatic  direct where this rank's MPI reads the matrix's memory, staged otherwise.
//   peer       the native half only (ksync::cuda::mpi::distributed_csr), where every rank a rank exchanges with
//              runs on its node: each GPU writes its neighbours' ghosts straight into their device memory (CUDA
//              IPC), counters in device memory order the GPUs, and no host waits for a GPU or another rank
//              (ksync/cuda/detail/distributed/peer_halo.hpp). Asked on every rank or on none.
enum class halo_memory { automatic, direct, staged, peer };

namespace detail {
inline constexpr std::string_view halo_memory_names[] = {"automatic", "direct", "staged", "peer"};
}  // namespace detail

[[nodiscard]] constexpr std::string_view to_string(halo_memory memory) noexcept {
  return ksync::detail::name_in(detail::halo_memory_names, memory);
}

// The path named `name` (as to_string spells it); throws std::invalid_argument for any other name.
[[nodiscard]] inline halo_memory halo_memory_from_string(std::string_view name) {
  return ksync::detail::value_named<halo_memory>(detail::halo_memory_names, name, "ksync::mpi::halo_memory_from_string",
                                                 "halo path");
}

// Collective over comm: what `asked` resolves to on this rank. reaches() says whether this rank's MPI reads
// and writes the matrix's memory (`memory`, its name for messages); it may throw std::invalid_argument (a bad
// KSYNC_MPI_GPU_AWARE), which stops every rank instead of leaving them waiting. `peer_refused` is empty where the
// caller has the peer path, else why not. `direct` where the MPI cannot read that memory, `peer` where refused,
// or a value that is no halo_memory, makes every rank throw collective_error.
template <class Reaches>
[[nodiscard]] halo_memory choose_halo(MPI_Comm comm, const char* where, halo_memory asked, std::string_view memory,
                                      std::string_view peer_refused, const Reaches& reaches) {
  std::ostringstream problem;
  bool reached = false;
  if (!ksync::detail::named_in(detail::halo_memory_names, asked)) {
    problem << "halo = " << static_cast<int>(asked) << " is not a ksync::mpi::halo_memory ("
            << ksync::detail::listed(detail::halo_memory_names) << ")";
  } else if (asked == halo_memory::peer && !peer_refused.empty()) {
    problem << "halo = peer: " << peer_refused;
  } else {
    try {
      reached = (asked == halo_memory::direct || asked == halo_memory::automatic) && reaches();
    } catch (const std::invalid_argument& error) {
      problem << error.what();
    }
    if (problem.tellp() == 0 && asked == halo_memory::direct && !reached)
      problem << "halo = direct, but this MPI does not read " << memory
              << " memory (ksync::mpi::reads_cuda_memory; KSYNC_MPI_GPU_AWARE=1 if it does)";
  }
  check_collectively(comm, problem.tellp() == 0, where, problem.str());
  // The peer halo is made collectively: a rank that asks for it where another does not would wait for that one.
  detail::check_same_everywhere(comm, where, "halo == peer (1: yes)", asked == halo_memory::peer ? 1 : 0);
  if (asked == halo_memory::automatic) return reached ? halo_memory::direct : halo_memory::staged;
  return asked;
}

}  // namespace ksync::mpi
