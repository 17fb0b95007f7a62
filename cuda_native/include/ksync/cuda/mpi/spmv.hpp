// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::mpi::spmv — y = A x for a matrix whose rows are split among the ranks of a communicator in
// contiguous blocks (ksync::row_partition), each rank holding its block on its GPU; the native twin of
// ksync::mpi::spmv (src/ksync/mpi/spmv.hpp). Link ksync::cuda_mpi.
//
//   ksync::cuda::mpi::distributed_csr<T, Index, Offset> a(comm, partition, rows[, halo]);
//       collective and blocking, once per matrix, on the current device: `rows` are this rank's rows with global
//       column indices (a ksync::host_csr_matrix); the halo plan (ksync/halo.hpp) is built from the sparsity
//       pattern and the columns renumbered locally (the rank's own, then its ghosts). `halo`
//       (ksync::mpi::halo_memory, ksync/mpi/halo.hpp) says where the halo travels: `direct` from a device
//       buffer and straight into x (an MPI that reads CUDA memory, ksync::mpi::reads_cuda_memory), `staged`
//       through pinned host memory, `automatic` (the default) the first where the MPI allows it, `peer` from
//       GPU to GPU within a node (CUDA IPC, below). With `peer`, destroying the matrix is collective too.
//   ksync::cuda::mpi::spmv(stream, comm, a, x, y);
//       collective: x (device memory) holds a.local_columns() values, this rank's a.owned_rows() first; the
//       call fills the rest (the ghosts) from the other ranks and writes y (a.owned_rows() values).
//
// The product overlaps the exchange with the rows that need no ghost (the interior), ordered by events, never
// by a device-wide synchronization. The matrix keeps a stream of its own for the halo, at the device's highest
// priority so that the pack is not queued behind a grid of interior blocks. The product records an event on
// `stream` (x is complete; the last product's boundary rows, which read x's ghosts, are done) and makes the halo
// stream wait for it; packs the entries the other ranks need there; enqueues the interior rows on `stream`;
// waits on the host for the pack alone; posts the receives and sends and waits for them while the interior rows
// run; where the halo was staged, copies the ghosts into x on the halo stream and makes `stream` wait for that
// copy (an event); then enqueues the boundary rows on `stream`. It returns with those enqueued: y is complete in
// `stream`'s order. x's producer and any earlier reader of its ghosts must be on `stream` or ordered before it; with
// a peer halo so must the matrix's last product, whose counters the next one's follow (a product on another stream
// that is not ordered after it can leave a GPU waiting for good).
// With a peer halo the host waits for nothing: the pack writes each neighbour's ghosts into its device memory once
// the neighbour's GPU said its last boundary rows are done, and the boundary rows wait until the neighbours' GPUs
// said their values are in, through counters in device memory (ksync/cuda/detail/distributed/peer_halo.hpp);
// and since each product's counter values repeat every other product, its steps are captured once into a CUDA
// graph (per pair of vectors x and y, place the boundary rows read the ghosts from, value and stream priority) and
// launched with one call from then on.
// Nothing of it waits behind a ksync::cuda::host_gate: enqueued before the messages, behind a gate the host opened
// once they were in, the work after the exchange made the product slower (docs/multi-gpu.md, two ranks on an H100).
//
// Each row is summed in its storage order, as ksync::cuda::spmv's row_per_thread does, so every rank's rows
// equal the one-rank product's bits. Arguments are checked collectively: a wrong argument on one rank makes
// every rank throw ksync::mpi::collective_error before any rank sends. Where this rank's own work throws (a
// launch, an event), it still sends and receives its halo, then throws: the others finish.
#pragma once

#include <ksync/csr.hpp>
#include <ksync/cuda/csr_matrix.hpp>
#include <ksync/cuda/detail/device_memory.hpp>
#include <ksync/cuda/detail/distributed/peer_halo.hpp>
#include <ksync/cuda/detail/distributed/rows.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/host_memory.hpp>
#include <ksync/cuda/node/nccl.hpp>
#include <ksync/cuda/stream.hpp>
#include <ksync/detail/spmv_choice.hpp>  // check_spmv_disjoint
#include <ksync/halo.hpp>
#include <ksync/mpi/collective.hpp>
#include <ksync/mpi/device_memory.hpp>
#include <ksync/mpi/halo.hpp>

#include <mpi.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ksync::cuda::mpi {

using ksync::mpi::halo_memory;

template <class T, class Index = std::int32_t, class Offset = Index>
class distributed_csr {
 public:
  using matrix_type = csr_matrix<T, Index, Offset>;
  using row_set = ksync::cuda::detail::distributed::row_set;

  // Collective over comm, blocking, on the current device. `partition` must be the same on every rank with one
  // block per rank; `rows` holds this rank's partition.size(rank) rows, global columns. A problem on any rank
  // (rows that do not match the partition, a direct halo the MPI cannot read, no room on the device) makes every
  // rank throw collective_error naming it.
  distributed_csr(MPI_Comm comm, const row_partition& partition, const host_csr_matrix<T, Index, Offset>& rows,
                  halo_memory halo = halo_memory::automatic) {
    local_rows<T, Index, Offset> local;
    std::string problem;
    try {
      ksync::mpi::check_collectively(comm, partition.ranks() == ksync::mpi::size_of(comm), where,
                                     "partition.ranks() = " + std::to_string(partition.ranks()) + " but comm has " +
                                         std::to_string(ksync::mpi::size_of(comm)) + " ranks");
      local = localize(partition, ksync::mpi::rank_of(comm), rows);
    } catch (const std::invalid_argument& error) {
      problem = error.what();
    }
    ksync::mpi::check_collectively(comm, problem.empty(), where, problem);
    halo_ =
        ksync::mpi::choose_halo(comm, where, halo, "CUDA device", {}, [] { return ksync::mpi::reads_cuda_memory(); });
    ksync::mpi::complete_sends(comm, partition, local.plan);  // its counts also bound each message by INT_MAX
    plan_ = std::move(local.plan);
    ksync::mpi::detail::local_failure setup;
    try {
      offsets_ = copied(local.matrix.row_offsets);
      columns_ = copied(local.matrix.columns);
      values_ = copied(local.matrix.values);
      // localize checked the rows' structure on the host (host_csr_matrix::check); no kernel checks it again.
      matrix_ = matrix_type::already_checked(local.matrix.rows, local.matrix.cols, local.matrix.nnz(), offsets_.data(),
                                             columns_.data(), values_.data());
      interior_ = rows_of(local.interior, interior_list_);
      boundary_ = rows_of(local.boundary, boundary_list_);
      sends_ = copied(plan_.sends);
      send_indices_ = sends_.data();
      make_halo_side();
    } catch (...) {
      setup.hold();
    }
    setup.check_everywhere(comm, where, "making the matrix's device arrays");
    if (halo_ == halo_memory::peer)  // collective: choose_halo gave peer on every rank or on none
      peer_ = std::make_unique<ksync::cuda::detail::distributed::peer_halo<T>>(comm, plan_, where);
  }

  // Over the arrays of a distributed matrix already on the current device and checked (the bridge from
  // ksync::mpi::distributed_csr, whose arrays these are): `plan` with its send side, the local rows (local column
  // indices), their two row sets and the send indices stay the caller's and must outlive this matrix. Not
  // collective; the halo, where MPI moves it, is staged. Only its own buffers, stream and events are made here.
  [[nodiscard]] static distributed_csr borrowing(halo_plan plan, const matrix_type& local, row_set interior,
                                                 row_set boundary, const std::int64_t* send_indices) {
    distributed_csr a;
    a.plan_ = std::move(plan);
    a.matrix_ = local;
    a.interior_ = interior;
    a.boundary_ = boundary;
    a.send_indices_ = send_indices;
    a.halo_ = halo_memory::staged;
    a.make_halo_side();
    return a;
  }

  [[nodiscard]] std::int64_t owned_rows() const noexcept { return plan_.owned; }
  [[nodiscard]] std::int64_t local_columns() const noexcept { return plan_.local_columns(); }
  [[nodiscard]] const halo_plan& plan() const noexcept { return plan_; }
  [[nodiscard]] const matrix_type& local_matrix() const noexcept { return matrix_; }  // local column indices
  [[nodiscard]] const row_set& interior_rows() const noexcept { return interior_; }
  [[nodiscard]] const row_set& boundary_rows() const noexcept { return boundary_; }
  // Where this rank's halo travels: direct, staged or peer (automatic resolved when the matrix was made).
  [[nodiscard]] halo_memory halo() const noexcept { return halo_; }
  // The device the matrix lives on (current when it was made).
  [[nodiscard]] int device() const noexcept { return device_; }

  // The halo's own pieces, for the product (detail::spmv_unchecked).
  [[nodiscard]] const std::int64_t* send_indices() const noexcept { return send_indices_; }
  [[nodiscard]] T* send_buffer() const noexcept {
    return halo_ == halo_memory::direct ? device_send_.data() : pinned_send_.data();
  }
  [[nodiscard]] T* device_send_buffer() const noexcept { return device_send_.data(); }
  [[nodiscard]] T* staged_ghosts() const noexcept { return pinned_receive_.data(); }
  [[nodiscard]] cudaStream_t halo_stream() const noexcept { return halo_stream_->get(); }
  [[nodiscard]] const event& x_ready() const noexcept { return *x_ready_; }
  [[nodiscard]] const event& packed() const noexcept { return *packed_; }
  [[nodiscard]] const event& ghosts_in() const noexcept { return *ghosts_in_; }
  // The peer halo's buffers, counters and events (null unless halo() == peer).
  [[nodiscard]] const ksync::cuda::detail::distributed::peer_halo<T>* peer() const noexcept { return peer_.get(); }
  // The serial of the NCCL communicator this rank's halo peers and global sums were last connected through (0:
  // none): ksync::cuda::mpi::cg's NCCL form connects them once, before anything in a solve can fail.
  [[nodiscard]] std::uint64_t nccl_connected() const noexcept { return nccl_connected_; }
  void set_nccl_connected(std::uint64_t serial) const noexcept { nccl_connected_ = serial; }

 private:
  static constexpr const char* where = "ksync::cuda::mpi::distributed_csr";

  distributed_csr() = default;

  // On the current device: the halo's buffers (a device one for a direct halo and the NCCL product, pinned ones
  // for a staged halo), its stream at the device's highest priority and the product's events.
  void make_halo_side() {
    KSYNC_CUDA_CHECK(cudaGetDevice(&device_));
    if (!plan_.sends.empty()) device_send_ = device_buffer<T>(plan_.sends.size(), where);
    if (halo_ == halo_memory::staged) {
      if (!plan_.sends.empty()) pinned_send_ = pinned_buffer<T>(plan_.sends.size(), cudaHostAllocDefault, where);
      if (!plan_.ghosts.empty()) pinned_receive_ = pinned_buffer<T>(plan_.ghosts.size(), cudaHostAllocDefault, where);
    }
    int least = 0;
    int greatest = 0;
    KSYNC_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    halo_stream_ = std::make_unique<stream>(greatest);
    x_ready_ = std::make_unique<event>(cudaEventDisableTiming);
    packed_ = std::make_unique<event>(cudaEventDisableTiming);
    ghosts_in_ = std::make_unique<event>(cudaEventDisableTiming);
  }
  template <class V>
  static device_buffer<V> copied(const std::vector<V>& host) {
    device_buffer<V> copy;
    if (!host.empty()) {
      copy = device_buffer<V>(host.size(), where);
      copy.copy_from(host);
    }
    return copy;
  }
  // One run [first, first + count) when the rows are consecutive, else their list copied into `list`.
  static row_set rows_of(const std::vector<std::int64_t>& rows, device_buffer<std::int64_t>& list) {
    row_set set{.list = nullptr, .first = rows.empty() ? 0 : rows.front(), .count = std::int64_t(rows.size())};
    if (!is_one_run(rows)) {
      list = copied(rows);
      set.list = list.data();
    }
    return set;
  }

  halo_plan plan_;
  int device_ = 0;
  device_buffer<Offset> offsets_;
  device_buffer<Index> columns_;
  device_buffer<T> values_;
  matrix_type matrix_;
  device_buffer<std::int64_t> interior_list_;
  device_buffer<std::int64_t> boundary_list_;
  row_set interior_;
  row_set boundary_;
  device_buffer<std::int64_t> sends_;
  const std::int64_t* send_indices_ = nullptr;  // sends_, or the borrowed indices
  halo_memory halo_ = halo_memory::automatic;
  device_buffer<T> device_send_;         // direct and NCCL: the packed entries; the ghosts arrive in x
  pinned_buffer<T> pinned_send_;         // staged
  pinned_buffer<T> pinned_receive_;      // staged
  std::unique_ptr<stream> halo_stream_;  // behind pointers: the matrix stays movable, its handles in place
  std::unique_ptr<event> x_ready_;
  std::unique_ptr<event> packed_;
  std::unique_ptr<event> ghosts_in_;
  // Declared after the halo stream, destroyed before it: it waits for its own pushes, which may run there.
  std::unique_ptr<ksync::cuda::detail::distributed::peer_halo<T>> peer_;
  mutable std::uint64_t nccl_connected_ = 0;  // a note kept by a const product, as the events are used
};

namespace detail {

// One local step under `failure` (ksync/mpi/collective.hpp): skipped once this rank failed; what it throws is
// held, so that the rank still takes part in the exchange.
template <class Step>
void unless_failed(ksync::mpi::detail::local_failure& failure, Step&& step) {
  if (failure.failed()) return;
  try {
    step();
  } catch (...) {
    failure.hold();
  }
}

// The boundary rows of a product with a peer halo, once `stream` waited for the sources: where the ghosts stay
// where they arrived, they read the peer buffer; otherwise `stream` copies them into x first.
template <class T, class Index, class Offset>
void peer_boundary_rows(cudaStream_t stream, const ksync::cuda::detail::distributed::peer_halo<T>& peer,
                        const distributed_csr<T, Index, Offset>& a, T* x, T* y,
                        ksync::mpi::detail::ghost_destination destination) {
  using ksync::cuda::detail::distributed::multiply_rows;
  const halo_plan& plan = a.plan();
  if (plan.ghosts.empty()) {
    multiply_rows(stream, a.local_matrix(), a.boundary_rows(), x, y);
  } else if (destination == ksync::mpi::detail::ghost_destination::where_they_arrive) {
    multiply_rows(stream, a.local_matrix(), a.boundary_rows(), static_cast<const T*>(x), peer.ghosts(), plan.owned, y);
  } else {
    KSYNC_CUDA_CHECK(cudaMemcpyAsync(x + plan.owned, peer.ghosts(), plan.ghosts.size() * sizeof(T),
                                     cudaMemcpyDeviceToDevice, stream));
    multiply_rows(stream, a.local_matrix(), a.boundary_rows(), x, y);
  }
}

// The product of a matrix with a peer halo (ksync/cuda/detail/distributed/peer_halo.hpp has the steps): the host
// waits for nothing, neither the GPU nor another rank. The product is one launch of a graph captured the first time
// for these vectors, this value and this stream's priority (unless the driver refuses to capture it); where this
// rank failed before (or fails to capture or launch it), the steps are taken one by one, each tried on its own: the
// start, the pushes and the waits also once this rank failed, since the neighbours' GPUs wait for the first two and
// the next product's counter writes must follow the last.
template <class T, class Index, class Offset>
void spmv_peer_unchecked(cudaStream_t stream, const ksync::cuda::detail::distributed::peer_halo<T>& peer,
                         cudaStream_t halo, const distributed_csr<T, Index, Offset>& a, T* x, T* y,
                         ksync::mpi::detail::local_failure& failure,
                         ksync::mpi::detail::ghost_destination destination) {
  using ksync::cuda::detail::distributed::multiply_rows;
  const std::uint32_t value = peer.next_value();
  if (!failure.failed() && !peer.captures_refused()) {
    try {
      int priority = 0;
      KSYNC_CUDA_CHECK(cudaStreamGetPriority(stream, &priority));
      const bool launched = peer.launch_captured(
          stream, {.x = x, .y = y, .destination = destination, .priority = priority}, value,
          [&](cudaStream_t main, cudaStream_t branch) {
            peer.start(main, branch, value);
            multiply_rows(main, a.local_matrix(), a.interior_rows(), x, y);  // no ghost
            peer.push(branch, static_cast<const T*>(x), a.send_indices(), value, /*in_capture=*/true);
            peer.wait_for_sources(main, value);
            peer_boundary_rows(main, peer, a, x, y, destination);
          });
      if (launched) return;
    } catch (...) {
      failure.hold();  // nothing of this product was launched: the steps below still tell the neighbours
    }
  }
  const cudaStream_t halo_steps = peer.halo_steps_on(stream, halo);  // `stream`, unless captures were refused
  try {
    peer.start(stream, halo_steps, value);
  } catch (...) {
    if (!failure.failed()) failure.hold();
  }
  unless_failed(failure, [&] { multiply_rows(stream, a.local_matrix(), a.interior_rows(), x, y); });
  try {
    peer.push(halo_steps, static_cast<const T*>(x), a.send_indices(), value, /*in_capture=*/false);
  } catch (...) {
    if (!failure.failed()) failure.hold();
  }
  try {
    peer.wait_for_sources(stream, value);  // the next product's counter writes follow it, also after a failure
  } catch (...) {
    if (!failure.failed()) failure.hold();
  }
  unless_failed(failure, [&] { peer_boundary_rows(stream, peer, a, x, y, destination); });
}

// The product without its collective checks, for callers that checked the same arguments once (the solver
// calls it every iteration). This rank's local steps run under `failure`: once one of them threw, the rest are
// skipped, but the halo is still sent and awaited, so no other rank waits for this one.
template <class T, class Index, class Offset>
void spmv_unchecked(cudaStream_t stream, MPI_Comm comm, const distributed_csr<T, Index, Offset>& a, T* x, T* y,
                    ksync::mpi::detail::local_failure& failure,
                    ksync::mpi::detail::ghost_destination destination = ksync::mpi::detail::ghost_destination::x) {
  constexpr int tag = 4243;  // the product's halo, as ksync::mpi::spmv's
  using ksync::cuda::detail::distributed::multiply_rows;
  const halo_plan& plan = a.plan();
  if (!plan.exchanges()) {  // one rank, or a block that reads no other's columns: every row is interior
    unless_failed(failure, [&] { multiply_rows(stream, a.local_matrix(), a.interior_rows(), x, y); });
    unless_failed(failure, [&] { multiply_rows(stream, a.local_matrix(), a.boundary_rows(), x, y); });
    return;
  }
  const cudaStream_t halo = a.halo_stream();
  if (const auto* peer = a.peer(); peer != nullptr) {
    spmv_peer_unchecked(stream, *peer, halo, a, x, y, failure, destination);
    return;
  }
  bool pack_recorded = false;
  unless_failed(failure, [&] {
    a.x_ready().record(stream);  // x complete; the last product's boundary rows (readers of the ghosts) done
    a.x_ready().make_wait(halo);
    if (!plan.sends.empty())
      ksync::cuda::detail::distributed::gather(halo, static_cast<const T*>(x), a.send_indices(),
                                               static_cast<std::int64_t>(plan.sends.size()), a.send_buffer());
    a.packed().record(halo);
    pack_recorded = true;
  });
  unless_failed(failure, [&] { multiply_rows(stream, a.local_matrix(), a.interior_rows(), x, y); });  // no ghost
  // MPI reads the packed entries next, and writes the ghosts where the last product's ghost copy (on the halo
  // stream) and boundary rows (before x_ready) read them: the host waits for the pack's event alone, also where a
  // later step failed. Where this rank failed before the pack was recorded, nothing is waited for: it throws, and
  // what it sends or receives is not used.
  if (pack_recorded) {
    try {
      a.packed().synchronize();
    } catch (...) {
      if (!failure.failed()) failure.hold();
    }
  }
  const bool direct = a.halo() == halo_memory::direct;
  T* const ghosts = direct ? x + plan.owned : a.staged_ghosts();
  auto requests = ksync::mpi::detail::post_halo(comm, plan, static_cast<const T*>(a.send_buffer()), ghosts, tag);
  KSYNC_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  if (!direct && !plan.ghosts.empty() && destination == ksync::mpi::detail::ghost_destination::where_they_arrive) {
    // The boundary rows read the staged ghosts in pinned memory: no copy, no event. The next product's receives
    // overwrite them only after its host wait for the pack, which follows these rows on `stream` (x_ready).
    unless_failed(failure, [&] {
      multiply_rows(stream, a.local_matrix(), a.boundary_rows(), static_cast<const T*>(x),
                    static_cast<const T*>(a.staged_ghosts()), plan.owned, y);
    });
    return;
  }
  if (!direct && !plan.ghosts.empty()) {
    unless_failed(failure, [&] {
      KSYNC_CUDA_CHECK(cudaMemcpyAsync(x + plan.owned, a.staged_ghosts(), plan.ghosts.size() * sizeof(T),
                                       cudaMemcpyHostToDevice, halo));
      a.ghosts_in().record(halo);
      a.ghosts_in().make_wait(stream);  // the boundary rows read them next
    });
  }
  unless_failed(failure, [&] { multiply_rows(stream, a.local_matrix(), a.boundary_rows(), x, y); });
}

// The product with its halo through NCCL on the halo stream (ksync::cuda::mpi::cg's NCCL form): the same order of
// events as spmv_unchecked, but nothing waits on the host, so a solve whose scalars stay on the GPUs can enqueue
// iterations ahead. The entries are packed into the device send buffer and the ghosts received straight into x. The
// kernels do nothing once *done (the solve's cg_scalars::done, device memory) is set; the exchange still runs, so
// every rank makes the same NCCL calls.
template <class T, class Index, class Offset>
void spmv_nccl_unchecked(cudaStream_t stream, const node::nccl_communicator& nccl,
                         const distributed_csr<T, Index, Offset>& a, T* x, T* y, const int* done) {
  using ksync::cuda::detail::distributed::multiply_rows;
  const halo_plan& plan = a.plan();
  if (plan.exchanges()) {
    const cudaStream_t halo = a.halo_stream();
    a.x_ready().record(stream);  // x complete; the last product's boundary rows (readers of the ghosts) done
    a.x_ready().make_wait(halo);
    if (!plan.sends.empty())
      ksync::cuda::detail::distributed::gather(halo, static_cast<const T*>(x), a.send_indices(),
                                               static_cast<std::int64_t>(plan.sends.size()), a.device_send_buffer(),
                                               done);
    multiply_rows(stream, a.local_matrix(), a.interior_rows(), x, y, done);  // no ghost: beside the exchange
    ksync::cuda::detail::nccl_exchange_halo(nccl, halo, plan, static_cast<const T*>(a.device_send_buffer()),
                                            x + plan.owned);
    a.ghosts_in().record(halo);
    a.ghosts_in().make_wait(stream);  // the boundary rows read the ghosts next
  } else {
    multiply_rows(stream, a.local_matrix(), a.interior_rows(), x, y, done);
  }
  multiply_rows(stream, a.local_matrix(), a.boundary_rows(), x, y, done);
}

// Throws std::invalid_argument (cuda_error where a query fails) unless `a` is this rank's matrix and lives on the
// current device: the operations' kernels and buffers go to the current device, the halo stream and events belong
// to the matrix's.
template <class Matrix>
void check_matrix_here(const char* where, MPI_Comm comm, const Matrix& a) {
  ksync::detail::check_argument(a.plan().rank == ksync::mpi::rank_of(comm), where, "the matrix is rank ", a.plan().rank,
                                "'s, not this rank's (", ksync::mpi::rank_of(comm), ")");
  int current = 0;
  KSYNC_CUDA_CHECK(cudaGetDevice(&current));
  ksync::detail::check_argument(current == a.device(), where, "the current device is ", current,
                                " but the matrix lives on device ", a.device(), " (cudaSetDevice first)");
}

// Throws std::invalid_argument unless `v` (`name`, `count` values) is device memory of the matrix's device, or null
// where it holds nothing; `use` says what the operation does with it.
template <class T, class Matrix>
void check_vector(const char* where, const Matrix& a, const T* v, const char* name, std::int64_t count,
                  const char* use) {
  ksync::detail::check_argument(v != nullptr || count == 0, where, name, " is null but holds ", count, " values here");
  if (v != nullptr) ksync::cuda::detail::check_device_memory(where, name, v, a.device(), use);
}

// Every rank checks the product's pointers, then all learn whether any failed.
template <class T, class Index, class Offset>
void check_product_arguments(const char* where, MPI_Comm comm, const distributed_csr<T, Index, Offset>& a, const T* x,
                             const T* y) {
  std::string problem;
  try {
    check_matrix_here(where, comm, a);
    constexpr const char* use = "the product reads x and writes y";
    check_vector(where, a, x, "x", a.local_columns(), use);
    check_vector(where, a, y, "y", a.owned_rows(), use);
    ksync::detail::check_spmv_disjoint(where, x, static_cast<std::size_t>(a.local_columns()) * sizeof(T), y,
                                       static_cast<std::size_t>(a.owned_rows()) * sizeof(T));
  } catch (const std::exception& error) {  // invalid_argument, or cuda_error from a query
    problem = error.what();
  }
  ksync::mpi::check_collectively(comm, problem.empty(), where, problem);
}

}  // namespace detail

// Collective over comm: y = A x for this rank's rows, x's ghosts filled on the way (see the top of the file).
// Asynchronous on `stream` for y (staged and direct: the host waits for the pack and the messages, not for the rows;
// peer: the host waits for nothing).
template <class T, class Index, class Offset>
void spmv(cudaStream_t stream, MPI_Comm comm, const distributed_csr<T, Index, Offset>& a, T* x, T* y) {
  detail::check_product_arguments("ksync::cuda::mpi::spmv", comm, a, static_cast<const T*>(x),
                                  static_cast<const T*>(y));
  ksync::mpi::detail::local_failure failure;
  detail::spmv_unchecked(stream, comm, a, x, y, failure);
  failure.rethrow_here();  // this rank's halo went out all the same: no other rank waits for it
}

}  // namespace ksync::cuda::mpi
