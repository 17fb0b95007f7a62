// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::mpi::spmv — y = A x for a matrix whose rows are split among the ranks of a communicator in
// contiguous blocks (ksync::row_partition), each rank holding its block on its own device:
//
//   ksync::mpi::distributed_csr<T, Index, MemorySpace, Offset> a(exec, comm, partition, rows[, halo]);
//       collective and blocking, once per matrix: `rows` are this rank's rows with global column indices
//       (a ksync::host_csr_matrix); the halo plan (ksync/halo.hpp: which x entries each rank sends to which)
//       is built from the sparsity pattern, the columns renumbered locally (the rank's own, then its ghosts).
//       `halo` (ksync::mpi::halo_memory) says where the halo travels from and to, below.
//   ksync::mpi::spmv(exec, comm, a, x, y);
//       collective: x holds a.local_columns() entries, this rank's a.owned_rows() first; the call fills the
//       rest (the ghosts) from the other ranks and writes y (a.owned_rows() entries).
//
// The product overlaps the exchange with the rows that need no ghost (the interior). On a device backend the
// halo has an instance of its own (the matrix keeps one, made by partition_space from the first `exec` it is
// given, made again for another). The product orders the halo instance after `exec` (x's producer, and the last
// product's reads of the buffers, are done), packs the entries the other ranks need on the halo instance, enqueues
// the interior rows on `exec` behind it (the pack, launched first, is not queued behind a grid of interior blocks),
// fences the halo instance alone (MPI reads the buffer next), posts the receives and sends, waits for them while the
// interior rows run, copies the ghosts into x on the halo instance where they were staged and fences it, then
// enqueues the boundary rows on `exec`. It returns with those enqueued: y is complete once `exec` is fenced (or its
// later work runs). No fence is device-wide. On host backends a kernel returns when it is done, so there one instance
// does all of it and the exchange waits behind the interior rows instead.
// On Kokkos::Cuda with ksync's native half the halo instance waits for `exec` on the GPU (an event,
// ksync/detail/bridge/instance_event.hpp); elsewhere `exec` is fenced (Kokkos has no call that orders one instance
// after another), and the GPU stays idle until the host has enqueued the pack and the interior rows.
//
// Where the halo travels (halo_memory, chosen per rank; a.halo() says which was taken):
//   direct     MPI reads the send buffer in the matrix's memory space and receives the ghosts straight into x
//              (into a buffer there, then copied into x, where x is strided or in another space): no host
//              copy. Host memory spaces always; CUDA device memory where the MPI reads it
//              (ksync::mpi::reads_cuda_memory, ksync/mpi/device_memory.hpp: a GPU-aware MPI).
//   staged     both buffers in host memory the device reads and writes directly (Kokkos::SharedHostPinnedSpace),
//              the ghosts then copied into x on exec: what an MPI that cannot read device memory needs.
//   automatic  direct where the MPI reads the matrix's memory space, staged otherwise.
// `direct` asked for where the MPI cannot read that memory is refused on every rank (collective_error), and so is
// `peer`, the native half's path (ksync/cuda/mpi/spmv.hpp).
//
// Each row is summed in its storage order, as ksync::spmv's row_per_thread does, so every rank's rows equal
// the one-rank product bit for bit. Arguments are checked collectively (ksync/mpi/collective.hpp): a wrong
// extent on one rank makes every rank throw collective_error before any rank sends. Where this rank's own
// work throws (a kernel, the fence), it still sends and receives its halo, then throws: the others finish.
#pragma once

#include <ksync/backend.hpp>
#include <ksync/compat.hpp>
#include <ksync/csr_matrix.hpp>
#include <ksync/detail/bridge/instance_event.hpp>
#include <ksync/detail/checks.hpp>
#include <ksync/detail/index_policy.hpp>
#include <ksync/detail/spmv/row_per_thread.hpp>
#include <ksync/detail/spmv/row_sets.hpp>
#include <ksync/detail/spmv_choice.hpp>
#include <ksync/halo.hpp>
#include <ksync/mpi/collective.hpp>
#include <ksync/mpi/device_memory.hpp>
#include <ksync/mpi/halo.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <any>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ksync::mpi {

// Local rows of one kind (interior or boundary), ascending: one run [first, first + count) when they are
// consecutive (a row block's interior is, for a banded matrix: a kernel over a range then reads no list),
// else the list itself.
template <class MemorySpace>
struct row_set {
  Kokkos::View<const std::int64_t*, MemorySpace> list;  // empty when the rows are one run
  std::int64_t first = 0;
  std::int64_t count = 0;
  [[nodiscard]] bool is_run() const noexcept { return list.extent(0) == 0; }

  template <class ExecutionSpace>
  static row_set of(const ExecutionSpace& exec, const char* label, const std::vector<std::int64_t>& rows) {
    row_set set{.list = {}, .first = rows.empty() ? 0 : rows.front(), .count = static_cast<std::int64_t>(rows.size())};
    if (!is_one_run(rows)) set.list = ksync::detail::device_copy_of<MemorySpace>(exec, label, rows);
    return set;
  }
};

// Whether this process's MPI reads and writes MemorySpace itself: host memory always, CUDA device memory where
// the MPI says so (reads_cuda_memory), other device memory never (no query is asked for it).
template <class MemorySpace>
[[nodiscard]] bool mpi_reaches() {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
    return true;
#ifdef KOKKOS_ENABLE_CUDA
  } else if constexpr (std::is_same_v<MemorySpace, Kokkos::CudaSpace>) {
    return reads_cuda_memory();
#endif
  } else {
    return false;
  }
}

template <class T, class Index = std::int32_t, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space,
          class Offset = Index>
class distributed_csr {
 public:
  using matrix_type = csr_matrix<T, Index, MemorySpace, Offset>;
  using memory_space = MemorySpace;
  using rows_view = Kokkos::View<const std::int64_t*, MemorySpace>;

  // Collective over comm, blocking (exec is fenced before it returns). `partition` must be the same on every
  // rank with one block per rank; `rows` holds this rank's partition.size(rank) rows, global columns.
  template <class ExecutionSpace>
  distributed_csr(const ExecutionSpace& exec, MPI_Comm comm, const row_partition& partition,
                  const host_csr_matrix<T, Index, Offset>& rows, halo_memory halo = halo_memory::automatic) {
    constexpr const char* where = "ksync::mpi::distributed_csr";
    static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible &&
                      Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::SharedHostPinnedSpace>::accessible,
                  "ksync::mpi::distributed_csr: exec must be able to reach the matrix's memory space and pinned host "
                  "memory");
    const int rank = rank_of(comm);
    local_rows<T, Index, Offset> local;
    std::string problem;
    try {
      check_collectively(comm, partition.ranks() == size_of(comm), where,
                         "partition.ranks() = " + std::to_string(partition.ranks()) + " but comm has " +
                             std::to_string(size_of(comm)) + " ranks");
      local = localize(partition, rank, rows);
    } catch (const std::invalid_argument& error) {
      problem = error.what();
    }
    check_collectively(comm, problem.empty(), where, problem);
    halo_ = chosen_halo(comm, halo);
    complete_sends(comm, partition, local.plan);
    const auto largest = [](const std::vector<std::int64_t>& offsets) {
      std::int64_t most = 0;
      for (std::size_t k = 0; k + 1 < offsets.size(); ++k)
        most = std::max(most, offsets[k + 1] - offsets[k]);
      return most;
    };
    check_collectively(comm,
                       largest(local.plan.source_offsets) <= INT_MAX && largest(local.plan.target_offsets) <= INT_MAX,
                       where, "a halo message of more than INT_MAX entries (one MPI call's count)");
    plan_ = std::move(local.plan);
    matrix_ = matrix_type(exec, local.matrix);
    interior_ = row_set<MemorySpace>::of(exec, "ksync::mpi::distributed_csr::interior", local.interior);
    boundary_ = row_set<MemorySpace>::of(exec, "ksync::mpi::distributed_csr::boundary", local.boundary);
    sends_ = ksync::detail::device_copy_of<MemorySpace>(exec, "ksync::mpi::distributed_csr::sends", plan_.sends);
    const auto allocate = [&](auto& send, auto& receive) {
      using buffer = std::remove_reference_t<decltype(send)>;
      send = buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ksync::mpi::distributed_csr::send"),
                    plan_.sends.size());
      receive = buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ksync::mpi::distributed_csr::receive"),
                       plan_.ghosts.size());
    };
    if (halo_ == halo_memory::direct) {
      allocate(direct_send_, direct_receive_);
    } else {
      allocate(staged_send_, staged_receive_);
    }
    exec.fence("ksync::mpi::distributed_csr: the local rows are on the device");  // the host vectors go out of scope
  }

  [[nodiscard]] std::int64_t owned_rows() const noexcept { return plan_.owned; }
  [[nodiscard]] std::int64_t local_columns() const noexcept { return plan_.local_columns(); }
  [[nodiscard]] const halo_plan& plan() const noexcept { return plan_; }
  [[nodiscard]] const matrix_type& local_matrix() const noexcept { return matrix_; }  // local column indices
  [[nodiscard]] const row_set<MemorySpace>& interior_rows() const noexcept { return interior_; }
  [[nodiscard]] const row_set<MemorySpace>& boundary_rows() const noexcept { return boundary_; }
  [[nodiscard]] const rows_view& send_indices() const noexcept { return sends_; }
  // Where this rank's halo travels: direct or staged (automatic resolved when the matrix was made).
  [[nodiscard]] halo_memory halo() const noexcept { return halo_; }
  // body(send, receive) with the halo's two buffers (Views of a.plan().sends.size() and a.plan().ghosts.size()
  // entries, in the matrix's memory space when direct, pinned host memory when staged).
  template <class Body>
  decltype(auto) with_halo_buffers(const Body& body) const {
    if (halo_ == halo_memory::direct) return body(direct_send_, direct_receive_);
    return body(staged_send_, staged_receive_);
  }
  // What the bridge to the native half keeps beside the matrix (ksync/detail/bridge/mpi_cg.hpp: its native twin and
  // an NCCL communicator), made by the bridge the first time, dropped with the matrix.
  [[nodiscard]] std::any& bridge_state() const noexcept { return bridge_state_; }
  // What a device product orders its halo instance after exec with (x complete), where the bridge gives an event.
  [[nodiscard]] ksync::detail::instance_event& x_ready() const noexcept { return x_ready_; }
  // The instance the halo's own work (pack, ghost copy) runs on beside `exec`, on device backends: made by
  // partition_space of `exec` the first time and kept, keyed on exec's instance (made again for another one).
  template <class ExecutionSpace>
  [[nodiscard]] ExecutionSpace halo_instance(const ExecutionSpace& exec) const {
    using kept = kept_instance<ExecutionSpace>;
    const auto key = exec.impl_instance_id();
    if (const auto* held = std::any_cast<kept>(&halo_instance_); held != nullptr && held->key == key)
      return held->instance;
    kept made{.key = key, .instance = compat::partition_space(exec, 1).front()};
    halo_instance_ = made;
    return made.instance;
  }

 private:
  template <class ExecutionSpace>
  struct kept_instance {
    decltype(std::declval<const ExecutionSpace&>().impl_instance_id()) key;
    ExecutionSpace instance;
  };
  using direct_buffer = Kokkos::View<T*, MemorySpace>;
  using staged_buffer = Kokkos::View<T*, Kokkos::SharedHostPinnedSpace>;

  // Collective: what `asked` resolves to on this rank (choose_halo, ksync/mpi/halo.hpp).
  static halo_memory chosen_halo(MPI_Comm comm, halo_memory asked) {
    return choose_halo(comm, "ksync::mpi::distributed_csr", asked, MemorySpace::name(),
                       "the native half's path (ksync::cuda::mpi::distributed_csr); this product's halo travels "
                       "through MPI (automatic, direct or staged)",
                       [] { return mpi_reaches<MemorySpace>(); });
  }

  halo_plan plan_;
  matrix_type matrix_;
  row_set<MemorySpace> interior_;
  row_set<MemorySpace> boundary_;
  rows_view sends_;
  halo_memory halo_ = halo_memory::automatic;
  direct_buffer direct_send_;
  direct_buffer direct_receive_;
  staged_buffer staged_send_;
  staged_buffer staged_receive_;
  mutable std::any halo_instance_;  // a kept_instance<ExecutionSpace>, once a device product ran
  mutable std::any bridge_state_;
  mutable ksync::detail::instance_event x_ready_;
};

// Deduction from a host matrix: the default memory space of exec.
template <class ExecutionSpace, class T, class Index, class Offset>
distributed_csr(const ExecutionSpace&, MPI_Comm, const row_partition&, const host_csr_matrix<T, Index, Offset>&,
                halo_memory = halo_memory::automatic)
    -> distributed_csr<T, Index, typename ExecutionSpace::memory_space, Offset>;

namespace detail {

// What a product sums besides y: nothing (the product alone), or x . y over this rank's rows into a rank-1 View
// of two entries (the classic CG's p . Ap on host backends, ksync/mpi/cg.hpp): entry 0 the interior rows' share, entry
// 1 the boundary rows', each summed as its rows are made (ksync::detail::rows_product_and_dot), so x and y are not read
// again. Both entries are written by kernels on `exec`, fenced by nothing here. A row set with no rows leaves its entry
// as it is: a caller makes the View with zeros (the row sets are the matrix's, fixed).
struct without_dot {};

template <class Dot>
[[nodiscard]] auto dot_entry(const Dot& dot, int entry) {
  if constexpr (std::is_same_v<Dot, without_dot>) {
    return without_dot{};
  } else {
    return Kokkos::subview(dot, entry);
  }
}

template <class ExecutionSpace, class Matrix, class MemorySpace, class XView, class YView, class DotEntry = without_dot>
void enqueue_rows(const ExecutionSpace& exec, const char* label, const Matrix& a, const row_set<MemorySpace>& rows,
                  const XView& x, const YView& y, const DotEntry& dot = {}) {
  using policy = ksync::detail::index_policy<ExecutionSpace>;
  if (rows.count == 0) return;
  if constexpr (std::is_same_v<DotEntry, without_dot>) {
    if (rows.is_run()) {
      Kokkos::parallel_for(label, policy(exec, rows.first, rows.first + rows.count),
                           ksync::detail::SpmvRowPerThread<Matrix, XView, YView>{a, x, y});
    } else {
      Kokkos::parallel_for(
          label, policy(exec, 0, rows.count),
          ksync::detail::listed_rows_product<Matrix, decltype(rows.list), XView, YView>{a, rows.list, x, y});
    }
  } else {
    const ksync::detail::lane_split lanes = ksync::detail::rows_as_lanes(exec, rows.count);
    const auto reduce = [&](const auto& row_of) {
      Kokkos::parallel_reduce(
          label, policy(exec, 0, lanes.lanes),
          ksync::detail::rows_product_and_dot<Matrix, std::remove_cvref_t<decltype(row_of)>, XView, YView>{a, row_of, x,
                                                                                                           y, lanes},
          dot);
    };
    if (rows.is_run()) {
      reduce(ksync::detail::row_run{rows.first});
    } else {
      reduce(rows.list);
    }
  }
}

// send(k) = x(indices(k)) on exec: this rank's entries that the others need.
template <class ExecutionSpace, class SendView, class IndexView, class XView>
void pack_entries(const ExecutionSpace& exec, const SendView& send, const IndexView& indices, const XView& x) {
  Kokkos::parallel_for(
      "ksync::mpi::spmv::pack",
      ksync::detail::index_policy<ExecutionSpace>(exec, 0, static_cast<std::int64_t>(send.extent(0))),
      KOKKOS_LAMBDA(std::int64_t k) { send(k) = x(indices(k)); });
}

// Whether the ghosts are received straight into x: a direct halo, x contiguous in the matrix's memory space.
template <class Matrix, class XView>
[[nodiscard]] bool receives_into(const Matrix& a, const XView& x) {
  if constexpr (std::is_same_v<typename XView::memory_space, typename Matrix::memory_space>) {
    return a.halo() == halo_memory::direct && x.stride(0) == 1;
  } else {
    return false;
  }
}

// send(k) = x(a.send_indices()(k)) enqueued on `packer`, nothing fenced: this rank's entries the others
// need. Under `failure` (ksync/mpi/collective.hpp): skipped once this rank failed; what it throws is held.
template <class ExecutionSpace, class Matrix, class XView>
void pack_halo(const ExecutionSpace& packer, const Matrix& a, const XView& x, local_failure& failure) {
  if (failure.failed() || a.plan().sends.empty()) return;
  try {
    a.with_halo_buffers(
        [&](const auto& send, const auto& /*receive*/) { pack_entries(packer, send, a.send_indices(), x); });
  } catch (...) {
    failure.hold();
  }
}

// Fences `packer` where anything travels (MPI reads the packed buffer next; where this rank sends nothing,
// the receives still overwrite what the last product's ghost copy read on it), then posts the receives and
// sends. Under `failure`: the fence is skipped once this rank failed, the halo posted all the same, so no
// other rank waits for this one. Wait for the requests with finish_halo.
template <class ExecutionSpace, class Matrix, class XView>
[[nodiscard]] std::vector<MPI_Request> post_packed_halo(const ExecutionSpace& packer, MPI_Comm comm, const Matrix& a,
                                                        const XView& x, local_failure& failure, int tag) {
  const halo_plan& plan = a.plan();
  if (!failure.failed() && plan.exchanges()) {
    try {
      packer.fence("ksync::mpi::spmv: the halo is packed");
    } catch (...) {
      failure.hold();
    }
  }
  return a.with_halo_buffers([&](const auto& send, const auto& receive) {
    auto* const ghosts = receives_into(a, x) ? x.data() + plan.owned : receive.data();
    return post_halo(comm, plan, send.data(), ghosts, tag);
  });
}

// The halo's first half on one instance: packed on exec, exec fenced, the receives and sends posted.
template <class ExecutionSpace, class Matrix, class XView>
[[nodiscard]] std::vector<MPI_Request> start_halo(const ExecutionSpace& exec, MPI_Comm comm, const Matrix& a,
                                                  const XView& x, local_failure& failure, int tag) {
  pack_halo(exec, a, x, failure);
  return post_packed_halo(exec, comm, a, x, failure, tag);
}

// The halo's second half: waits for it, then, where the ghosts did not arrive in x itself, enqueues their copy
// into x on `copier`. Returns whether it enqueued one. Under `failure`, as pack_halo.
template <class ExecutionSpace, class Matrix, class XView>
bool finish_halo(const ExecutionSpace& copier, const Matrix& a, const XView& x, std::vector<MPI_Request>& requests,
                 local_failure& failure) {
  KSYNC_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  if (failure.failed() || receives_into(a, x) || a.plan().ghosts.empty()) return false;
  try {
    a.with_halo_buffers([&](const auto& /*send*/, const auto& receive) {
      const std::int64_t owned = a.plan().owned;
      Kokkos::deep_copy(copier, Kokkos::subview(x, Kokkos::make_pair(owned, owned + std::int64_t(receive.extent(0)))),
                        receive);
    });
  } catch (...) {
    failure.hold();
    return false;
  }
  return true;
}

// Entry j of x's local columns with the ghosts read where they arrived: x(j) for this rank's own columns,
// ghosts(j - owned) for the rest. A row operator reads it as it reads x (csr_row_apply), so the rows keep their bits.
template <class XView, class GhostView>
struct split_entries {
  XView x;
  GhostView ghosts;
  std::int64_t owned;
  KOKKOS_FUNCTION typename XView::non_const_value_type operator()(std::int64_t j) const {
    return j < owned ? x(j) : ghosts(j - owned);
  }
};

// One row set of the product enqueued on exec, under `failure` as pack_halo.
template <class ExecutionSpace, class Matrix, class MemorySpace, class XView, class YView, class DotEntry>
void enqueue_rows_unless_failed(const ExecutionSpace& exec, const char* label, const Matrix& a,
                                const row_set<MemorySpace>& rows, const XView& x, const YView& y, const DotEntry& dot,
                                local_failure& failure) {
  if (failure.failed()) return;
  try {
    enqueue_rows(exec, label, a, rows, x, y, dot);
  } catch (...) {
    failure.hold();
  }
}

// The halo's second half and the boundary rows on exec, the ghosts read as `destination` says. Where they go to
// x and were staged, their copy runs on `copier` first, fenced where copier is an instance of its own
// (fence_copier: the device path). Under `failure`, as pack_halo.
template <class ExecutionSpace, class Matrix, class XView, class YView, class DotEntry>
void finish_product(const ExecutionSpace& exec, const ExecutionSpace& copier, bool fence_copier, const Matrix& a,
                    const XView& x, const YView& y, const DotEntry& dot, std::vector<MPI_Request>& requests,
                    local_failure& failure, ghost_destination destination) {
  constexpr const char* boundary = "ksync::mpi::spmv::boundary";
  const auto& rows = a.local_matrix();
  if (destination == ghost_destination::x || receives_into(a, x) || a.plan().ghosts.empty()) {
    if (finish_halo(copier, a, x, requests, failure) && fence_copier) {
      try {
        copier.fence("ksync::mpi::spmv: the ghosts are in x");  // the boundary rows on exec read them next
      } catch (...) {
        failure.hold();
      }
    }
    enqueue_rows_unless_failed(exec, boundary, rows, a.boundary_rows(), x, y, dot, failure);
    return;
  }
  KSYNC_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  a.with_halo_buffers([&](const auto& /*send*/, const auto& receive) {
    const split_entries<XView, std::remove_cvref_t<decltype(receive)>> entries{x, receive, a.plan().owned};
    enqueue_rows_unless_failed(exec, boundary, rows, a.boundary_rows(), entries, y, dot, failure);
  });
}

// The product without its collective checks, for callers that checked the same arguments once (the solvers
// call it every iteration, where two more MPI_Allreduce a product would cost more than the rows of a small
// block), leaving the ghosts as `destination` says. This rank's local steps run under `failure`
// (ksync/mpi/collective.hpp): once one of them threw, the rest are skipped, but the halo is still sent and
// awaited, so no other rank waits for this one. With `dot` (a View, see without_dot) it also sums x . y.
template <class ExecutionSpace, class T, class Index, class MemorySpace, class Offset, class XView, class YView,
          class Dot = without_dot>
void spmv_unchecked(const ExecutionSpace& exec, MPI_Comm comm, const distributed_csr<T, Index, MemorySpace, Offset>& a,
                    const XView& x, const YView& y, local_failure& failure,
                    ghost_destination destination = ghost_destination::x, const Dot& dot = {}) {
  constexpr int tag = 4243;  // the product's halo; ksync::mpi::exchange uses 4242
  constexpr const char* interior = "ksync::mpi::spmv::interior";
  const auto& rows = a.local_matrix();
  if constexpr (!runs_on_host<ExecutionSpace>) {
    if (a.plan().exchanges()) {
      ExecutionSpace halo = exec;  // stays exec only where this rank failed before it had its own
      if (!failure.failed()) {
        try {
          // x's producer, the last product's boundary rows (which read x's ghosts) and its ghost copy are done
          // before the halo instance reads x and MPI overwrites the buffers (MPI is posted after a fence of the halo
          // instance): the halo instance waits for exec on the GPU where the bridge gives an event, else exec is
          // fenced; exec alone, never the device.
          const ExecutionSpace own = a.halo_instance(exec);
          if (!a.x_ready().order(exec, own)) exec.fence("ksync::mpi::spmv: x is complete");
          halo = own;
        } catch (...) {
          failure.hold();
        }
      }
      pack_halo(halo, a, x, failure);  // launched before the interior rows, so not queued behind their blocks
      enqueue_rows_unless_failed(exec, interior, rows, a.interior_rows(), x, y, dot_entry(dot, 0),
                                 failure);  // read no ghost
      if (failure.failed()) {
        // A step failed after the halo instance was ordered behind exec, and post_packed_halo skips its fence
        // now: exec is fenced instead, so MPI does not overwrite buffers that the last product's rows may still
        // read. The failure reported is the first one; a second one here is dropped.
        local_failure settling;
        try {
          exec.fence("ksync::mpi::spmv: x is complete");
        } catch (...) {
          settling.hold();
        }
      }
      auto requests = post_packed_halo(halo, comm, a, x, failure, tag);  // fences the halo instance, not exec
      // Staged ghosts bound for x are copied on the halo instance, which is then fenced.
      finish_product(exec, halo, /*fence_copier=*/true, a, x, y, dot_entry(dot, 1), requests, failure, destination);
      return;
    }
  }
  // Host backends, where each kernel returns when it is done, and a rank with no halo: one instance.
  auto requests = start_halo(exec, comm, a, x, failure, tag);
  enqueue_rows_unless_failed(exec, interior, rows, a.interior_rows(), x, y, dot_entry(dot, 0), failure);
  finish_product(exec, exec, /*fence_copier=*/false, a, x, y, dot_entry(dot, 1), requests, failure, destination);
}

}  // namespace detail

// Collective over comm: y = A x for this rank's rows, x's ghosts filled on the way (see the top of the file).
template <class ExecutionSpace, class T, class Index, class MemorySpace, class Offset, class XView, class YView>
void spmv(const ExecutionSpace& exec, MPI_Comm comm, const distributed_csr<T, Index, MemorySpace, Offset>& a,
          const XView& x, const YView& y) {
  constexpr const char* where = "ksync::mpi::spmv";
  static_assert(ksync::detail::takes_exec_and_two_views_v<ExecutionSpace, XView, YView>,
                "ksync::mpi::spmv: the first argument must be a Kokkos execution space instance, `x` and `y` rank-1 "
                "Views that it can access");
  static_assert(std::is_same_v<typename XView::value_type, T> && std::is_same_v<typename YView::value_type, T>,
                "ksync::mpi::spmv: `x` and `y` must be non-const Views of the matrix's value type (the call writes "
                "x's ghosts)");
  const bool x_fits = static_cast<std::int64_t>(x.extent(0)) == a.local_columns();
  const bool y_fits = static_cast<std::int64_t>(y.extent(0)) == a.owned_rows();
  check_collectively(comm, x_fits && y_fits && a.plan().rank == rank_of(comm), where,
                     "x.extent(0) = " + std::to_string(x.extent(0)) +
                         " and y.extent(0) = " + std::to_string(y.extent(0)) + " but the matrix has " +
                         std::to_string(a.local_columns()) + " local columns and " + std::to_string(a.owned_rows()) +
                         " rows here" + (a.plan().rank == rank_of(comm) ? "" : " (and is another rank's)"));
  std::string overlap;
  try {
    ksync::detail::check_spmv_disjoint(where, x.data(), x.span() * sizeof(T), y.data(), y.span() * sizeof(T));
  } catch (const std::invalid_argument& error) {
    overlap = error.what();
  }
  check_collectively(comm, overlap.empty(), where, overlap);

  detail::local_failure failure;
  detail::spmv_unchecked(exec, comm, a, x, y, failure);
  failure.rethrow_here();  // this rank's halo went out all the same: no other rank waits for it
}

}  // namespace ksync::mpi
