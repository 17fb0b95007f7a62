// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::mpi::cg — conjugate gradients across the ranks of a communicator, each rank holding its block of
// rows of A (a ksync::mpi::distributed_csr) and the same rows of b and x on its device:
//
//   ksync::cg_result result = ksync::mpi::cg(exec, comm, a, b, x[, options]);
//
// Collective and blocking (returns once CG stopped, the same result on every rank). b and x hold
// a.owned_rows() entries; x is the initial guess on entry and this rank's rows of the solution on return.
// Each iteration is one distributed product (ksync::mpi::spmv: the halo travels while the interior rows run)
// and two global sums, each a local Kokkos reduction (which fences exec for its host value) and one
// MPI_Allreduce, as the host_scalars form of ksync::cg does on one device. The scalar steps are ksync::cg's
// own (cg_start, cg_advance in ksync/cg_types.hpp), so the stopping test, the Jacobi preconditioner
// (options.preconditioner: M = diag(A), the residual in the M^-1 norm), the history, the true-residual check
// and the refusals of unusable input behave as they do there. The classic recurrence only: options.recurrence
// = pipelined is refused. Every rank computes the scalars from the same sums, so all ranks stop together.
// Arguments are checked collectively: options that differ between ranks, or a wrong extent on one rank, make
// every rank throw collective_error before any rank iterates. Kernels are labelled "ksync::mpi::cg::<step>".
#pragma once

#include <ksync/cg_types.hpp>
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

// The sums of one MPI_Allreduce: up to three, summed element-wise over the ranks.
template <class T, int Count>
std::array<T, Count> sum_over_ranks(MPI_Comm comm, const std::array<T, Count>& local) {
  std::array<T, Count> global{};
  KSYNC_MPI_CHECK(MPI_Allreduce(local.data(), global.data(), Count, datatype<T>(), MPI_SUM, comm));
  return global;
}

// M^-1's entry at a local row: 1 / diag(A) with Jacobi, 1 without (inverse is then empty).
template <class View>
struct weight_of {
  View inverse;
  KOKKOS_FUNCTION typename View::value_type operator()(std::int64_t i) const {
    return inverse.extent(0) > 0 ? inverse(i) : typename View::value_type(1);
  }
};

// The work Views of a distributed solve: p spans the local columns (the product fills its ghosts); r, Ap and
// M^-1's entries (empty without Jacobi) are this rank's rows.
template <class Vector>
struct cg_vectors {
  Vector p;
  Vector r;
  Vector ap;
  Vector inverse;
};

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
  const bool jacobi = options.preconditioner == cg_preconditioner::jacobi;
  ksync::detail::cg_scalars<T> s;
  Kokkos::deep_copy(exec, Kokkos::subview(p, Kokkos::make_pair(std::int64_t{0}, n)), x);
  // Unchecked: p and ap are the solve's own, sized for a.
  spmv_unchecked(exec, comm, a, p, ap);
  // r . M^-1 r, b . M^-1 b, and the diagonal's check (0, or NaN where unusable).
  std::array<T, 3> start{};
  Kokkos::parallel_reduce(
      "ksync::mpi::cg::start", policy(exec, 0, n),
      KOKKOS_LAMBDA(std::int64_t i, T& rr, T& bb, T& check) {
        const T r_i = b(i) - ap(i);
        r(i) = r_i;
        const T w = weight(i);
        rr += r_i * w * r_i;
        bb += b(i) * w * b(i);
        check += w - w;  // 0, or NaN where diag(A) was zero, negative or not finite
      },
      start[0], start[1], start[2]);
  start = sum_over_ranks<T, 3>(comm, start);
  s.rho = start[0];
  s.rho_next = start[1];
  s.p_ap = start[2];
  ksync::detail::cg_start(s,
                          {.tolerance = options.tolerance,
                           .max_iterations = options.max_iterations,
                           .first_iteration = first_iteration,
                           .preconditioned = jacobi},
                          history);
  if (s.done != 0) return s;
  Kokkos::parallel_for(
      "ksync::mpi::cg::first_direction", policy(exec, 0, n),
      KOKKOS_LAMBDA(std::int64_t i) { p(i) = weight(i) * r(i); });
  while (true) {
    spmv_unchecked(exec, comm, a, p, ap);
    std::array<T, 1> p_ap{};
    Kokkos::parallel_reduce(
        "ksync::mpi::cg::p_ap", policy(exec, 0, n), KOKKOS_LAMBDA(std::int64_t i, T& sum) { sum += p(i) * ap(i); },
        p_ap[0]);
    s.p_ap = sum_over_ranks<T, 1>(comm, p_ap)[0];
    const T alpha = s.rho / s.p_ap;
    std::array<T, 1> rho_next{};
    Kokkos::parallel_reduce(
        "ksync::mpi::cg::update", policy(exec, 0, n),
        KOKKOS_LAMBDA(std::int64_t i, T& sum) {
          x(i) += alpha * p(i);
          const T r_i = r(i) - alpha * ap(i);
          r(i) = r_i;
          sum += r_i * weight(i) * r_i;
        },
        rho_next[0]);
    s.rho_next = sum_over_ranks<T, 1>(comm, rho_next)[0];
    ksync::detail::cg_advance(s, options.tolerance, options.max_iterations, history);
    if (s.done != 0) return s;
    const T beta = s.beta;
    Kokkos::parallel_for(
        "ksync::mpi::cg::direction", policy(exec, 0, n),
        KOKKOS_LAMBDA(std::int64_t i) { p(i) = weight(i) * r(i) + beta * p(i); });
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
    ksync::detail::check_argument(options.recurrence == cg_recurrence::classic, where,
                                  "options.recurrence = pipelined: ksync::mpi::cg runs the classic recurrence");
    ksync::detail::check_argument(static_cast<std::int64_t>(b.extent(0)) == n, where, "b.extent(0) = ", b.extent(0),
                                  " but the matrix has ", n, " rows here");
    ksync::detail::check_argument(static_cast<std::int64_t>(x.extent(0)) == n, where, "x.extent(0) = ", x.extent(0),
                                  " but the matrix has ", n, " rows here");
    ksync::detail::check_cg_apart(where, b.data(), b.span(), x.data(), x.span());
  } catch (const std::invalid_argument& error) {
    problem = error.what();
    const std::string prefix = std::string(where) + ": ";
    if (problem.starts_with(prefix)) problem.erase(0, prefix.size());  // check_collectively names `where` itself
  }
  check_collectively(comm, problem.empty(), where, problem);
  detail::check_same_everywhere(comm, where, "options.tolerance", options.tolerance);
  detail::check_same_everywhere(comm, where, "options.max_iterations", options.max_iterations);
  detail::check_same_everywhere(comm, where, "options.preconditioner",
                                static_cast<std::int64_t>(options.preconditioner));
  detail::check_same_everywhere(comm, where, "options.check_true_residual", std::int64_t{options.check_true_residual});

  // p spans the local columns: the product fills its ghosts. r and Ap are this rank's rows.
  const vector p(Kokkos::view_alloc(exec, "ksync::mpi::cg::p"), a.local_columns());
  const vector r(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::mpi::cg::r"), n);
  const vector ap(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::mpi::cg::ap"), n);
  const bool jacobi = options.preconditioner == cg_preconditioner::jacobi;
  const vector inverse(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::mpi::cg::inverse_diagonal"),
                       jacobi ? n : 0);
  if (jacobi) {
    const auto& matrix = a.local_matrix();  // local row i's diagonal is its local column i: own columns come first
    Kokkos::parallel_for(
        "ksync::mpi::cg::inverse_diagonal", policy(exec, 0, n),
        KOKKOS_LAMBDA(std::int64_t i) { inverse(i) = jacobi_inverse(static_cast<T>(matrix.diagonal(i))); });
  }
  std::vector<double> history(options.record_history ? static_cast<std::size_t>(options.max_iterations) + 1 : 0);
  double* const history_data = options.record_history ? history.data() : nullptr;

  const auto solve_from = [&](int first_iteration) {
    return detail::cg_run_from(exec, comm, a, b, x, detail::cg_vectors<vector>{p, r, ap, inverse}, options,
                               first_iteration, history_data);
  };
  const auto [s, restarts] = ksync::detail::cg_confirm_on_true_residual(options, solve_from);
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

}  // namespace ksync::mpi
