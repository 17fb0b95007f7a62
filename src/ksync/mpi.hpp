// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::mpi — beyond one node: one MPI rank per GPU (or per CPU socket), MPI as the engine between ranks.
// Link ksync::mpi (built when CMake finds MPI). Every function here is a collective over `comm`: every rank
// calls it, and an argument that is wrong on any rank makes every rank throw ksync::mpi::collective_error
// (ksync/mpi/collective.hpp) before any rank enters the data exchange, so a mistake never hangs the job.
//
//   reduce(exec, comm, data[, op[, strategy]])   blocking: ksync::reduce of this rank's part (waits for its
//                                                value on exec), then MPI_Allreduce; every rank returns the
//                                                global value.
//                                                Parts may differ in size (an empty part is fine).
//   all_reduce(exec, comm, data[, op])           blocking, element-wise and in place: data(i) becomes op over
//                                                every rank's data(i); the extents must agree on every rank.
//                                                Device data goes through a host copy (an MPI built without
//                                                CUDA support cannot read device memory).
//   pipeline(exec, comm, host_in, host_out, n, f[, config])
//                                                blocking: ksync::pipeline over this rank's n elements; the
//                                                configuration must agree on every rank; returns the seconds
//                                                of the slowest rank.
// A CSR matrix split by rows among the ranks and its product y = A x, the halo exchanged behind the interior
// rows: ksync::mpi::distributed_csr and ksync::mpi::spmv (ksync/mpi/spmv.hpp); CG on it: ksync::mpi::cg
// (ksync/mpi/cg.hpp).
// For results that stay on the GPU, NCCL is the engine: ksync::cuda::node::reduce(nccl_communicator, ...)
// (ksync/cuda/node/nccl.hpp, ksync/cuda/node/mpi.hpp).
#pragma once

#include <ksync/mpi/collective.hpp>
#include <ksync/ops.hpp>
#include <ksync/pipeline.hpp>
#include <ksync/reduce.hpp>
#include <ksync/types.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <chrono>
#include <climits>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>

namespace ksync::mpi {

[[nodiscard]] inline MPI_Op operation(reduce_op op) {
  return foreign_op(op, MPI_SUM, MPI_MIN, MPI_MAX);
}

template <class ExecutionSpace, class DataView>
[[nodiscard]] typename DataView::non_const_value_type reduce(const ExecutionSpace& exec, MPI_Comm comm,
                                                             const DataView& data, reduce_op op = reduce_op::sum,
                                                             reduce_strategy strategy = reduce_strategy::automatic) {
  using T = typename DataView::non_const_value_type;
  detail::check_same_everywhere(comm, "ksync::mpi::reduce", "op", static_cast<std::int64_t>(op));
  const T local = ksync::reduce(exec, data, op, strategy);
  T global{};
  KSYNC_MPI_CHECK(MPI_Allreduce(&local, &global, 1, datatype<T>(), operation(op), comm));
  return global;
}

template <class ExecutionSpace, class DataView>
void all_reduce(const ExecutionSpace& exec, MPI_Comm comm, const DataView& data, reduce_op op = reduce_op::sum) {
  static_assert(Kokkos::is_view_v<DataView> && DataView::rank() == 1,
                "ksync::mpi::all_reduce: data must be a rank-1 Kokkos::View");
  using T = typename DataView::non_const_value_type;
  static_assert(!std::is_const_v<typename DataView::value_type>, "ksync::mpi::all_reduce writes data in place");
  detail::check_same_everywhere(comm, "ksync::mpi::all_reduce", "data.extent(0)",
                                static_cast<std::int64_t>(data.extent(0)));
  detail::check_same_everywhere(comm, "ksync::mpi::all_reduce", "op", static_cast<std::int64_t>(op));
  check_collectively(comm, data.extent(0) <= INT_MAX, "ksync::mpi::all_reduce",
                     "data.extent(0) = " + std::to_string(data.extent(0)) + " is more than one MPI call holds");
  if (data.extent(0) == 0) return;
  // The host's copy (data itself when the host can read it), complete before MPI reads it.
  auto host = Kokkos::create_mirror_view(Kokkos::view_alloc(Kokkos::WithoutInitializing), data);
  Kokkos::deep_copy(exec, host, data);
  exec.fence("ksync::mpi::all_reduce: data on the host");
  KSYNC_MPI_CHECK(
      MPI_Allreduce(MPI_IN_PLACE, host.data(), static_cast<int>(host.extent(0)), datatype<T>(), operation(op), comm));
  Kokkos::deep_copy(exec, data, host);
  exec.fence("ksync::mpi::all_reduce: result in place");
}

template <class ExecutionSpace, class HostIn, class HostOut, class F>
double pipeline(const ExecutionSpace& exec, MPI_Comm comm, const HostIn& host_in, const HostOut& host_out,
                std::size_t n, const F& f, const pipeline_config& config = {}) {
  const char* where = "ksync::mpi::pipeline";
  detail::check_same_everywhere(comm, where, "config.streams", config.streams);
  detail::check_same_everywhere(comm, where, "config.chunk_elements", static_cast<std::int64_t>(config.chunk_elements));
  static_assert(ksync::detail::is_host_view_v<HostIn> && ksync::detail::is_host_view_v<HostOut>,
                "ksync::mpi::pipeline: host_in and host_out must be rank-1 Views the host can access");
  // This rank's own arguments, checked collectively so that a bad one stops every rank.
  std::optional<
      pipeline_plan<ExecutionSpace, typename HostIn::non_const_value_type, typename HostOut::non_const_value_type>>
      plan;
  std::string problem;
  try {
    ksync::detail::check_argument(host_in.extent(0) >= n && host_out.extent(0) >= n, where, "host_in holds ",
                                  host_in.extent(0), " and host_out ", host_out.extent(0),
                                  " elements, fewer than n = ", n);
    plan.emplace(exec, n, config);  // checks the configuration against n
  } catch (const std::invalid_argument& error) {
    problem = error.what();
  }
  check_collectively(comm, problem.empty(), where, problem);
  const auto start = std::chrono::steady_clock::now();
  plan->run(host_in, host_out, f);
  const double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double slowest = 0;
  KSYNC_MPI_CHECK(MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm));
  return slowest;
}

}  // namespace ksync::mpi
