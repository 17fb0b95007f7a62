// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::mpi::cg — conjugate gradients across the ranks of a communicator, each rank holding its block of
// rows of A (a ksync::mpi::distributed_csr) and the same rows of b and x on its device:
//
//   ksync::cg_result result = ksync::mpi::cg(exec, comm, a, b, x[, options]);
//
// Collective and blocking (returns once CG stopped, the same result on every rank). b and x hold
// a.owned_rows() entries; x is the initial guess on entry and this rank's rows of the solution on return.
// options.recurrence picks the iteration:
//   classic    one distributed product (ksync::mpi::spmv: the halo travels while the interior rows run) and
//              two global sums, each a local Kokkos reduction (which fences exec for its host value; p . Ap on
//              host backends in the product's own passes) and one blocking MPI_Allreduce, as the host_scalars
//              form of ksync::cg does on one device;
//   pipelined  Ghysels and Vanroose's recurrence (ksync/cg_pipelined.hpp): one pass of updates with both sums
//              in one local reduction, whose MPI_Iallreduce travels while the next product runs (that product
//              reads the new w, not the sums), so the global sum waits behind work instead of the other way
//              round. x must be contiguous. As on one device it moves more vectors and is always confirmed on
//              the true residual (cg_options).
// The scalar steps are ksync::cg's own (cg_start, cg_advance, cg_advance_pipelined in ksync/cg_types.hpp), so
// the stopping test, the Jacobi preconditioner (options.preconditioner: M = diag(A), the residual in the M^-1
// norm), the history, the true-residual check and the refusals of unusable input behave as they do there.
// Every rank computes the scalars from the same sums, so all ranks stop together. Where one rank's own work
// throws mid-solve (a kernel, a fence, an allocation), that rank still exchanges and sums up to the next
// global sum, which carries a failure count: there every rank throws collective_error naming the failing rank
// and its message, and the communicator stays usable; no rank is left waiting for one that left.
// Arguments are checked collectively: options that differ between ranks, or a wrong extent on one rank, make
// every rank throw collective_error before any rank iterates. Kernels are labelled "ksync::mpi::cg::<step>".
#pragma once

#include <ksync/cg_pipelined.hpp>
#include <ksync/cg_types.hpp>
#include <ksync/compat.hpp>
#include <ksync/detail/bridge/mpi_cg.hpp>
#include <ksync/detail/lanes.hpp>
#include <ksync/mpi/cg_rows.hpp>
#include <ksync/mpi/cg_sums.hpp>
#include <ksync/mpi/collective.hpp>
#include <ksync/mpi/spmv.hpp>
#include <ksync/stencil.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ksync::mpi {

namespace detail {

inline constexpr const char* cg_where = "ksync::mpi::cg";  // what a failure mid-solve names
// The solver's products read the ghosts where they arrived: no vector's ghosts have another reader.
inline constexpr auto ghosts_where_they_arrive = ghost_destination::where_they_arrive;

// The start's local part in both recurrences: x into `input` (the product's input, spanning the local
// columns), product = A x, r = b - A x, and this rank's r . M^-1 r, b . M^-1 b and the diagonal's check (0,
// or NaN where diag(A) is unusable). With keep_preconditioned_r (pipelined) M^-1 r goes into `input`, which
// the start's second product reads. Under `failure`, as every step of a solve (cg_run_from).
template <class ExecutionSpace, class Matrix, class BView, class XView, class Vector>
std::array<typename Vector::non_const_value_type, 3> local_start(const ExecutionSpace& exec, MPI_Comm comm,
                                                                 const Matrix& a, const BView& b, const XView& x,
                                                                 const Vector& input, const Vector& product,
                                                                 const Vector& r, const weight_of<Vector>& weight,
                                                                 bool keep_preconditioned_r, local_failure& failure) {
  using T = typename Vector::non_const_value_type;
  const std::int64_t n = a.owned_rows();
  try {
    Kokkos::deep_copy(exec, Kokkos::subview(input, Kokkos::make_pair(std::int64_t{0}, n)), x);
  } catch (...) {
    failure.hold();
  }
  spmv_unchecked(exec, comm, a, input, product, failure,
                 ghosts_where_they_arrive);  // unchecked: the solve's own Views, sized for a
  std::array<T, 3> sums{};
  if (failure.failed()) return sums;
  try {
    ksync::compat::parallel_reduce_sums(  // three sums, never the noexcept overloads of Kokkos 4.6 (compat.hpp)
        "ksync::mpi::cg::start", ksync::detail::index_policy<ExecutionSpace>(exec, 0, n),
        KOKKOS_LAMBDA(std::int64_t i, T& rr, T& bb, T& check) {
          const T r_i = b(i) - product(i);
          r(i) = r_i;
          const T u = weight(i);
          if (keep_preconditioned_r) input(i) = u * r_i;
          rr += r_i * u * r_i;
          bb += b(i) * u * b(i);
          check += u - u;  // 0, or NaN where diag(A) was zero, negative or not finite
        },
        sums);
  } catch (...) {
    failure.hold();
  }
  return sums;
}

// One run of CG from x: the start (r = b - A x and its tests), then iterations until the state is done. A named
// function with a spelled-out return type, not a lambda or `auto`: nvcc accepts the device lambdas below only
// inside such a function.
template <class ExecutionSpace, class Matrix, class BView, class XView, class Vector>
ksync::detail::cg_scalars<typename Vector::non_const_value_type> cg_run_from(
    const ExecutionSpace& exec, MPI_Comm comm, const Matrix& a, const BView& b, const XView& x,
    const cg_vectors<Vector>& v, const cg_options& options, int first_iteration, double* history) {
  using T = typename Vector::non_const_value_type;
  using policy = ksync::detail::index_policy<ExecutionSpace>;
  const std::int64_t n = a.owned_rows();
  const Vector p = v.p;
  const Vector r = v.r;
  const Vector ap = v.ap;
  const weight_of<Vector> weight{v.inverse};
  // This rank's work between two global sums runs in try blocks (local_failure): where it throws, the rank
  // still exchanges and sums up to the next sum, at which every rank stops with its message.
  local_failure failure;
  ksync::detail::cg_scalars<T> s =
      started<T, 3>(comm, cg_where, local_start(exec, comm, a, b, x, p, ap, r, weight, false, failure), failure,
                    options, first_iteration, history);
  if (s.done != 0) return s;
  try {
    Kokkos::parallel_for(
        "ksync::mpi::cg::first_direction", policy(exec, 0, n),
        KOKKOS_LAMBDA(std::int64_t i) { p(i) = weight(i) * r(i); });
  } catch (...) {
    failure.hold();
  }
  while (true) {
    const int iteration = s.iteration + 1;
    // Ap = A p and this rank's p . Ap: on host backends in the product's own passes (a share a row set), on devices in
    // a reduction of its own (fused, an H100 iteration was faster at m = 256, slower at m >= 2048: docs/multi-gpu.md).
    spmv_unchecked(exec, comm, a, p, ap, failure, ghosts_where_they_arrive, p_ap_in_the_product<ExecutionSpace>(v));
    std::array<T, 1> p_ap{};
    if (!failure.failed()) {
      try {
        if constexpr (runs_on_host<ExecutionSpace>) {
          exec.fence("ksync::mpi::cg: p . Ap");
          p_ap[0] = v.p_ap_shares(0) + v.p_ap_shares(1);
        } else {
          const ksync::detail::lane_split lanes = ksync::detail::rows_as_lanes(exec, n);
          Kokkos::parallel_reduce(
              "ksync::mpi::cg::p_ap", policy(exec, 0, lanes.lanes),
              KOKKOS_LAMBDA(std::int64_t lane, T& sum) {
                ksync::detail::fold_lane(lanes, lane, sum, [&](std::int64_t i) { return p(i) * ap(i); });
              },
              p_ap[0]);
        }
      } catch (...) {
        failure.hold();
      }
    }
    s.p_ap = sum_over_ranks<T, 1>(comm, cg_where, p_ap, failure, iteration)[0];
    const T alpha = s.rho / s.p_ap;
    std::array<T, 1> rho_next{};
    try {
      const ksync::detail::lane_split lanes = ksync::detail::rows_as_lanes(exec, n);
      const auto update = [&](auto weighted) {
        Kokkos::parallel_reduce("ksync::mpi::cg::update", policy(exec, 0, lanes.lanes),
                                classic_update_of_rank<T, XView, decltype(weighted)::value>{
                                    x, r.data(), p.data(), ap.data(), v.inverse.data(), alpha, lanes},
                                rho_next[0]);
      };
      if (v.inverse.extent(0) == 0) {
        update(std::false_type{});
      } else {
        update(std::true_type{});
      }
    } catch (...) {
      failure.hold();
    }
    s.rho_next = sum_over_ranks<T, 1>(comm, cg_where, rho_next, failure, iteration)[0];
    ksync::detail::cg_advance(s, options.tolerance, options.max_iterations, history);
    if (s.done != 0) return s;
    const T beta = s.beta;
    try {
      Kokkos::parallel_for(
          "ksync::mpi::cg::direction", policy(exec, 0, n),
          KOKKOS_LAMBDA(std::int64_t i) { p(i) = weight(i) * r(i) + beta * p(i); });
    } catch (...) {
      failure.hold();
    }
  }
}

// One run of the pipelined recurrence from x. Its start: r = b - A x, w = A M^-1 r, z = s = p = 0, and the
// four sums of the start in one MPI_Allreduce. Then, each iteration, the pass (every update and the two sums
// of the new r and w), whose MPI_Iallreduce travels while the next product A M^-1 w runs, halo and all: that
// product needs the new w, not the sums. A solve that stops has computed one product it does not use.
template <class ExecutionSpace, class Matrix, class BView, class XView, class Vector>
ksync::detail::cg_scalars<typename Vector::non_const_value_type> cg_pipelined_run_from(
    const ExecutionSpace& exec, MPI_Comm comm, const Matrix& a, const BView& b, const XView& x,
    const cg_pipelined_vectors_of_rank<Vector>& v, const cg_options& options, int first_iteration, double* history) {
  using T = typename Vector::non_const_value_type;
  const Vector r = v.r, w = v.w, input = v.input, z = v.z, s_vec = v.s, p = v.p, product = v.n;
  const weight_of<Vector> weight{v.inverse};
  local_failure failure;  // as in cg_run_from
  const bool jacobi = options.preconditioner == cg_preconditioner::jacobi;
  using policy = ksync::detail::index_policy<ExecutionSpace>;
  const std::int64_t n = a.owned_rows();
  // r . M^-1 r, b . M^-1 b, the diagonal's check, then w . M^-1 r.
  std::array<T, 4> start{};
  const auto first_three = local_start(exec, comm, a, b, x, input, product, r, weight, true, failure);
  std::copy(first_three.begin(), first_three.end(), start.begin());
  spmv_unchecked(exec, comm, a, input, product, failure, ghosts_where_they_arrive);
  if (!failure.failed()) {
    try {
      Kokkos::parallel_reduce(
          "ksync::mpi::cg::pipelined_start_w", policy(exec, 0, n),
          KOKKOS_LAMBDA(std::int64_t i, T& sum) {
            const T w_i = product(i);
            sum += w_i * weight(i) * r(i);
            w(i) = w_i;  // without Jacobi `input` is w: M^-1 r is overwritten only once read
            if (jacobi) input(i) = weight(i) * w_i;
            z(i) = 0;
            s_vec(i) = 0;
            p(i) = 0;
          },
          start[3]);
    } catch (...) {
      failure.hold();
    }
  }
  ksync::detail::cg_scalars<T> s = started<T, 4>(comm, cg_where, start, failure, options, first_iteration, history);
  if (s.done != 0) return s;
  // w.even == w.odd: the pass updates w in place, its product having run before it.
  const ksync::detail::cg_pipelined_vectors<T> vectors{.x = x.data(),
                                                       .r = r.data(),
                                                       .w = {.even = w.data(), .odd = w.data()},
                                                       .z = z.data(),
                                                       .s = s_vec.data(),
                                                       .p = p.data(),
                                                       .inverse_diagonal = jacobi ? v.inverse.data() : nullptr};
  spmv_unchecked(exec, comm, a, input, product, failure, ghosts_where_they_arrive);  // n = A M^-1 w
  while (true) {
    const int iteration = s.iteration + 1;
    const T alpha = s.rho / s.p_ap;
    const T beta = s.beta;
    std::array<T, 2> sums{};  // the new r . M^-1 r and w . M^-1 r
    if (!failure.failed()) {
      try {
        // A host branch, not with_preconditioning: that is a host-device function, and nvcc warns when one
        // calls a host lambda (#20013).
        const auto pass = [&](auto weighted) {
          const ksync::detail::lane_split lanes = ksync::detail::rows_as_lanes(exec, n);
          ksync::compat::parallel_reduce_sums("ksync::mpi::cg::pipelined_pass", policy(exec, 0, lanes.lanes),
                                              pipelined_pass_of_rank<T, decltype(weighted)::value>{
                                                  vectors, product.data(), input.data(), alpha, beta, lanes},
                                              sums);
        };
        if (vectors.inverse_diagonal == nullptr) {
          pass(std::false_type{});
        } else {
          pass(std::true_type{});
        }
      } catch (...) {
        failure.hold();
      }
    }
    sums_in_flight<T, 3> in_flight(comm, with_failure_count<T, 2>(sums, failure));
    spmv_unchecked(exec, comm, a, input, product, failure,
                   ghosts_where_they_arrive);  // the next n = A M^-1 w, while the sums travel
    sums = sums_unless_failed<T, 3>(comm, cg_where, in_flight.wait(), failure, iteration);
    s.rho_next = sums[0];
    s.delta = sums[1];
    ksync::detail::cg_advance_pipelined(s, options.tolerance, options.max_iterations, history);
    if (s.done != 0) {
      try {
        exec.fence("ksync::mpi::cg: the last product, unused, before its Views go");
      } catch (...) {
        failure.hold();
      }
      failure.check_everywhere(comm, cg_where, "the product after " + sum_of(iteration));
      return s;
    }
  }
}

}  // namespace detail

template <class ExecutionSpace, class T, class Index, class MemorySpace, class Offset, class BView, class XView>
cg_result cg(const ExecutionSpace& exec, MPI_Comm comm, const distributed_csr<T, Index, MemorySpace, Offset>& a,
             const BView& b, const XView& x, const cg_options& options = {}) {
  constexpr const char* where = "ksync::mpi::cg";
  static_assert(ksync::detail::takes_exec_and_two_views_v<ExecutionSpace, BView, XView>,
                "ksync::mpi::cg: the first argument must be a Kokkos execution space instance, `b` and `x` rank-1 "
                "Views that it can access");
  static_assert(
      std::is_same_v<typename BView::non_const_value_type, T> && std::is_same_v<typename XView::value_type, T>,
      "ksync::mpi::cg: `b` must hold the matrix's value type and `x` be a non-const View of it");
  using vector = Kokkos::View<T*, MemorySpace>;
  using policy = ksync::detail::index_policy<ExecutionSpace>;
  const std::int64_t n = a.owned_rows();

  // Every rank checks its own arguments, then all learn whether any failed; the options must agree.
  std::string problem;
  try {
    ksync::detail::check_cg_options(where, options);
    ksync::detail::check_argument(options.recurrence == cg_recurrence::classic || x.span_is_contiguous(), where,
                                  "options.recurrence = pipelined needs a contiguous x (its pass updates x through "
                                  "a pointer); this x is strided");
    ksync::detail::check_argument(static_cast<std::int64_t>(b.extent(0)) == n, where, "b.extent(0) = ", b.extent(0),
                                  " but the matrix has ", n, " rows here");
    ksync::detail::check_argument(static_cast<std::int64_t>(x.extent(0)) == n, where, "x.extent(0) = ", x.extent(0),
                                  " but the matrix has ", n, " rows here");
    ksync::detail::check_cg_apart(where, b.data(), b.span(), x.data(), x.span());
  } catch (const std::invalid_argument& error) {
    problem = error.what();
  }
  check_collectively(comm, problem.empty(), where, problem);
  detail::check_options_agree(comm, where, options);

  // The work Views and M^-1's entries, made on every rank before any rank exchanges: where one rank cannot
  // (out of memory, say), every rank stops here with its message.
  const bool jacobi = options.preconditioner == cg_preconditioner::jacobi;
  const bool classic = options.recurrence == cg_recurrence::classic;
  detail::cg_vectors<vector> classic_vectors;
  detail::cg_pipelined_vectors_of_rank<vector> pipelined_vectors;
  detail::local_failure setup;
  try {
    const auto rows = [&](const std::string& label) {
      return vector(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, label), n);
    };
    // p (classic), w and M^-1 w (pipelined) span the local columns: the product reads them, filling their ghosts.
    const auto columns = [&](const std::string& label) {
      return vector(Kokkos::view_alloc(exec, label), a.local_columns());
    };
    const vector inverse = jacobi ? rows("ksync::mpi::cg::inverse_diagonal") : vector();
    if (jacobi) {
      const auto& matrix = a.local_matrix();  // local row i's diagonal is its local column i: own columns first
      Kokkos::parallel_for(
          "ksync::mpi::cg::inverse_diagonal", policy(exec, 0, n),
          KOKKOS_LAMBDA(std::int64_t i) { inverse(i) = jacobi_inverse(static_cast<T>(matrix.diagonal(i))); });
    }
    if (classic) {
      classic_vectors = {.p = columns("ksync::mpi::cg::p"),
                         .r = rows("ksync::mpi::cg::r"),
                         .ap = rows("ksync::mpi::cg::ap"),
                         .inverse = inverse,
                         .p_ap_shares = {}};
      if constexpr (runs_on_host<ExecutionSpace>) {
        classic_vectors.p_ap_shares =
            decltype(classic_vectors.p_ap_shares)(Kokkos::view_alloc(exec, "ksync::mpi::cg::p_ap_shares"), 2);
      }
    } else {
      const vector w = columns("ksync::mpi::cg::w");
      pipelined_vectors = {.r = rows("ksync::mpi::cg::r"),
                           .w = w,
                           .input = jacobi ? columns("ksync::mpi::cg::preconditioned_w") : w,
                           .z = rows("ksync::mpi::cg::z"),
                           .s = rows("ksync::mpi::cg::s"),
                           .p = rows("ksync::mpi::cg::p"),
                           .n = rows("ksync::mpi::cg::n"),
                           .inverse = inverse};
    }
  } catch (...) {
    setup.hold();
  }
  setup.check_everywhere(comm, where, "setting up the solve");
  std::vector<double> history(options.record_history ? static_cast<std::size_t>(options.max_iterations) + 1 : 0);
  double* const history_data = options.record_history ? history.data() : nullptr;

  const auto [s, restarts] = ksync::detail::cg_confirm_on_true_residual(options, [&](int first_iteration) {
    return classic ? detail::cg_run_from(exec, comm, a, b, x, classic_vectors, options, first_iteration, history_data)
                   : detail::cg_pipelined_run_from(exec, comm, a, b, x, pipelined_vectors, options, first_iteration,
                                                   history_data);
  });
  // No fence of exec here: x's last update ran in a reduction whose host value was waited for.
  ksync::detail::check_cg_refusal(where, s);
  cg_result result{.iterations = s.iteration,
                   .relative_residual = ksync::detail::cg_relative_residual(s),
                   .converged = s.converged != 0,
                   .restarts = restarts,
                   .residual_history = {}};
  if (options.record_history) {
    history.resize(static_cast<std::size_t>(s.iteration) + 1);
    result.residual_history = std::move(history);
  }
  return result;
}

// The same with its form named (ksync/cg_types.hpp), as ksync::cg takes one: host_scalars is the call above, each
// global sum an MPI reduction of host values; device_scalars keeps the halo, the sums and the scalar steps on the
// GPUs through NCCL (the classic recurrence; ksync/detail/bridge/mpi_cg.hpp reaches ksync::cuda::mpi::cg's NCCL
// form): on Kokkos::Cuda where this ksync has its native half and NCCL, a GPU for every rank, b and x contiguous.
// Any other form, or device_scalars where it cannot run, makes every rank throw collective_error saying why.
template <class ExecutionSpace, class T, class Index, class MemorySpace, class Offset, class BView, class XView>
cg_result cg(const ExecutionSpace& exec, MPI_Comm comm, const distributed_csr<T, Index, MemorySpace, Offset>& a,
             const BView& b, const XView& x, cg_form form, const cg_options& options = {}) {
  constexpr const char* where = "ksync::mpi::cg";
  detail::check_same_everywhere(comm, where, "form", static_cast<std::int64_t>(form));
  if (form == cg_form::host_scalars) return cg(exec, comm, a, b, x, options);
  std::string problem;
  if (form != cg_form::device_scalars) {
    problem =
        "form = " + std::string(to_string(form)) + " is not one of ksync::mpi::cg's (host_scalars, device_scalars)";
  } else {
    problem = detail::why_no_nccl_cg<ExecutionSpace, Index, Offset>(comm);  // collective: every rank gets here
  }
  const auto n = static_cast<std::size_t>(a.owned_rows());
  if (problem.empty() && !(b.span_is_contiguous() && x.span_is_contiguous() && b.extent(0) == n && x.extent(0) == n))
    problem = "form = device_scalars needs contiguous b and x of the matrix's " + std::to_string(n) +
              " rows here; b.extent(0) = " + std::to_string(b.extent(0)) +
              ", x.extent(0) = " + std::to_string(x.extent(0));
  check_collectively(comm, problem.empty(), where, problem);
#if KSYNC_NATIVE_BRIDGE
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda> && ksync::detail::csr_has_native_twin<Index, Offset>) {
    const ksync::cuda::device_guard on(exec.cuda_device());  // as every bridge entry (native_bridge.hpp)
    auto& bridge = detail::nccl_bridge_of<T, Index, Offset>(comm, a);
    return ksync::cuda::mpi::cg(exec.cuda_stream(), comm, bridge.nccl, bridge.matrix, b.data(), x.data(), options);
  }
#endif
  throw std::logic_error("ksync::mpi::cg: form = device_scalars passed the checks where it cannot run");
}

}  // namespace ksync::mpi
