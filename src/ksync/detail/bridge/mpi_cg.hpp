// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::mpi::cg's device_scalars form (src/ksync/mpi/cg.hpp) to the NCCL form of
// ksync::cuda::mpi::cg (ksync/cuda/mpi/cg.hpp), whose halo, sums and scalar steps stay on the GPUs: on
// Kokkos::Cuda where this ksync has its native half. The first such solve of a matrix hands its arrays over as a
// native distributed matrix (ksync::cuda::mpi::distributed_csr::borrowing: the same device arrays, its own halo
// stream and events) and joins the ranks of comm in an NCCL communicator (collective); both are kept in the
// matrix (bridge_state), keyed on comm, and made again for another one.
#pragma once

#include <ksync/backend.hpp>
#include <ksync/cg_types.hpp>
#include <ksync/mpi/collective.hpp>

#include <mpi.h>

#include <string>
#include <type_traits>

#if KSYNC_NATIVE_BRIDGE
#include <ksync/cuda/mpi/cg.hpp>
#include <ksync/cuda/node/mpi.hpp>
#include <ksync/cuda/node/nccl.hpp>
#include <ksync/cuda/runtime.hpp>
#include <ksync/detail/bridge/cg.hpp>  // csr_has_native_twin, native_csr_offset

#include <any>
#include <memory>
#include <optional>
#include <utility>
#endif

namespace ksync::mpi::detail {

// Collective over comm (every rank calls it, with the same types): why this build, backend and placement of ranks
// cannot run the device_scalars form for a matrix of (Index, Offset) here; empty where they can. NCCL takes one
// GPU a rank, so a node must have a GPU for each of its ranks (Kokkos gives node-local rank r GPU r).
template <class ExecutionSpace, class Index, class Offset>
[[nodiscard]] std::string why_no_nccl_cg(MPI_Comm comm) {
#if KSYNC_NATIVE_BRIDGE
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
    if constexpr (!ksync::detail::csr_has_native_twin<Index, Offset>) {
      return "form = device_scalars: ksync::cuda does not compile this matrix's index types";
    } else {
      if (!ksync::cuda::node::has_nccl()) return "form = device_scalars needs NCCL: this ksync was built without it";
      const int node_ranks = local_size(comm);
      const int visible = ksync::cuda::visible_device_count();
      if (node_ranks > visible)
        return "form = device_scalars needs a GPU for every rank (NCCL): " + std::to_string(node_ranks) +
               " ranks share this node's " + std::to_string(visible) + " visible GPU(s)";
      return {};
    }
  }
#else
  (void)comm;
#endif
  return std::string(
             "form = device_scalars runs on Kokkos::Cuda with ksync's native half (NCCL between the ranks' "
             "GPUs); this is ") +
         ExecutionSpace::name();
}

#if KSYNC_NATIVE_BRIDGE
// The native twin of a portable distributed matrix and the NCCL communicator of comm, kept in the matrix.
template <class T, class Index, class Offset>
struct nccl_cg_bridge {
  MPI_Comm comm;
  ksync::cuda::mpi::distributed_csr<T, Index, Offset> matrix;
  ksync::cuda::node::nccl_communicator nccl;
};

// Collective over comm: the kept bridge of `a`, made (and kept) the first time, for another comm, and after a solve
// that failed on some rank aborted its communicator (on every rank, so all make it again). Where one rank
// cannot hand its matrix over (no room for the halo's buffers), every rank stops before joining NCCL.
template <class T, class Index, class Offset, class Matrix>
nccl_cg_bridge<T, Index, ksync::detail::native_csr_offset<Offset>>& nccl_bridge_of(MPI_Comm comm, const Matrix& a) {
  using offset = ksync::detail::native_csr_offset<Offset>;
  using bridge = nccl_cg_bridge<T, Index, offset>;
  using native_matrix = ksync::cuda::mpi::distributed_csr<T, Index, offset>;
  auto* kept = std::any_cast<std::shared_ptr<bridge>>(&a.bridge_state());
  if (kept != nullptr && (*kept)->comm == comm && !(*kept)->nccl.aborted()) return **kept;
  const auto& rows = a.local_matrix();
  const auto row_set_of = [](const auto& set) {
    return typename native_matrix::row_set{
        .list = set.is_run() ? nullptr : set.list.data(), .first = set.first, .count = set.count};
  };
  std::optional<native_matrix> twin;
  local_failure setup;
  try {
    const auto native_rows = native_matrix::matrix_type::already_checked(
        rows.rows(), rows.cols(), rows.nnz(), reinterpret_cast<const offset*>(rows.row_offsets().data()),
        rows.columns().data(), rows.values().data());
    twin.emplace(native_matrix::borrowing(a.plan(), native_rows, row_set_of(a.interior_rows()),
                                          row_set_of(a.boundary_rows()), a.send_indices().data()));
  } catch (...) {
    setup.hold();
  }
  setup.check_everywhere(comm, "ksync::mpi::cg", "handing the matrix over to ksync::cuda");
  auto made = std::make_shared<bridge>(
      bridge{.comm = comm, .matrix = std::move(*twin), .nccl = ksync::cuda::mpi::make_nccl_communicator(comm)});
  a.bridge_state() = made;
  return *made;
}
#endif

}  // namespace ksync::mpi::detail
