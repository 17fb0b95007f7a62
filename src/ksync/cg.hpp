// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cg — conjugate gradients for a symmetric positive definite operator on rank-1 Views, with Kokkos
// alone or, for the native forms on Kokkos::Cuda, through ksync's hand-written kernels (ksync::cuda::cg,
// cuda_native/include/ksync/cuda/device/cg.hpp). docs/solvers.md measures every form.
//
//   auto result = cg(exec, op, b, x[, form, options[, m]])  blocking: returns once CG stopped
//   cg_solver<Exec, T> solver(exec, n); solver.solve(exec, op, b, x[, form, options[, m]])  the same, with the
//                                                          work Views kept between solves
//
// x holds the initial guess on entry and the solution on return, in exec's order (read it on exec, or after
// fencing it). The result (iterations, relative residual, history) is a host value. Forms (ksync::cg_form,
// ksync/cg_types.hpp): host_scalars, device_scalars, fused and kokkos_graph are Kokkos code and run on every
// backend; cuda_graph, persistent_grid_sync, persistent_spin_barrier and persistent_cluster (sm_90) run
// ksync::cuda's kernels on exec.cuda_stream() and need Kokkos::Cuda, a ksync built with its native half, the
// built-in operator or a ksync::csr_matrix, and contiguous Views; elsewhere they throw std::invalid_argument. Where the
// host looks at the state (blocking dots of host_scalars, the checks of the other forms) it does so through mapped
// pinned memory on Kokkos::Cuda (ksync/cuda/mailbox.hpp) and through a deep copy and a fence of `exec` elsewhere.
//
// Operators. The built-in ksync::poisson_2d{m} (the 5-point Laplacian on m x m unknowns, ksync/stencil.hpp),
// a square ksync::csr_matrix (ksync/csr_matrix.hpp; every form, the native ones too), or your own, in one of
// two shapes:
//   rows:   op.extent() (the number of unknowns) and a device-callable
//           template <class Vector> KOKKOS_FUNCTION T operator()(const Vector& v, std::int64_t i) const
//           returning row i of A v, where v(j) gives entry j. Every portable form runs it.
//   apply:  op.extent() and op.apply(exec, x, y), enqueuing y = A x on exec for rank-1 Views (x const).
//           host_scalars and device_scalars run it; fused and kokkos_graph need rows (they form the
//           direction on the fly where A reads it) and throw std::invalid_argument.
// Preconditioning: options.preconditioner = cg_preconditioner::jacobi runs PCG with M = diag(A) in every form
// (ksync/cg_types.hpp says how it tests convergence); the operator gives its diagonal as op.diagonal(i)
// (poisson_2d and csr_matrix do). options.recurrence = cg_recurrence::pipelined runs Ghysels and Vanroose's
// pipelined CG (one reduction an iteration) in fused, kokkos_graph and the native forms but host_scalars and
// device_scalars; options.check_true_residual confirms convergence on b - A x (ksync/cg_types.hpp).
// A preconditioner of yours, as the last argument (host_scalars and device_scalars):
//   m.apply(exec, v, z) enqueues z = M^-1 v on exec, for v a Kokkos::View<const T*, memory_space> and z a
//   Kokkos::View<T*, memory_space> of n entries each, M symmetric positive definite (an incomplete
//   factorization, a multigrid cycle, a polynomial in A, Kokkos Kernels' preconditioners through a wrapper).
//   The start calls it twice (b, then r = b - A x), every iteration once; the stopping test is in the M^-1 norm
//   as with jacobi, and a start that finds b . M^-1 b or r . M^-1 r negative throws (M is not positive
//   definite). device_scalars enqueues check_every iterations at a time: apply also runs in the last batch's
//   iterations past convergence (docs/sparse.md).
// Kernels are labelled "ksync::cg::<step>".
#pragma once

#include <ksync/cg_types.hpp>
#include <ksync/csr_matrix.hpp>
#include <ksync/detail/bridge/cg.hpp>
#include <ksync/detail/cg/forms.hpp>
#include <ksync/detail/checks.hpp>
#include <ksync/stencil.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

namespace ksync {

// The built-in operator: the 2-D Poisson problem on m x m unknowns in row-major order (ksync/stencil.hpp).
struct poisson_2d {
  std::int64_t m = 0;
  KOKKOS_FUNCTION constexpr std::int64_t extent() const { return m * m; }
  template <class Vector>
  KOKKOS_FUNCTION auto operator()(const Vector& v, std::int64_t i) const {
    using T = std::remove_cvref_t<decltype(v(i))>;
    return poisson_2d_apply<T>(v, static_cast<int>(m), static_cast<int>(i));
  }
  // Host loops: rows first, ..., first + count - 1 of A v into out[0], ... (the same bits, vectorized:
  // poisson_2d_apply_rows). ksync::cg's host kernels use it where an operator has it (rows_on_host).
  template <class Vector, class T>
  void rows(const Vector& v, std::int64_t first, std::int64_t count, T* out) const {
    poisson_2d_apply_rows<T>(v, m, first, count, out);
  }
  KOKKOS_FUNCTION constexpr double diagonal(std::int64_t /*i*/) const { return 4.0; }
  friend constexpr bool operator==(const poisson_2d&, const poisson_2d&) = default;
};

namespace detail::cg {

template <class Operator>
inline constexpr bool is_csr_matrix_v = false;
template <class T, class Index, class MemorySpace, class Offset>
inline constexpr bool is_csr_matrix_v<csr_matrix<T, Index, MemorySpace, Offset>> = true;

// The checks every solve makes before any work: the operator's shape, the extents, the options.
template <class ExecutionSpace, class T, class Operator>
void check_solve(std::int64_t n, const Operator& op,
                 const Kokkos::View<const T*, typename ExecutionSpace::memory_space>& b,
                 const Kokkos::View<T*, typename ExecutionSpace::memory_space>& x, const cg_options& options) {
  constexpr const char* where = "ksync::cg";
  using vector = Kokkos::View<T*, typename ExecutionSpace::memory_space>;
  static_assert(row_operator<Operator, vector> || apply_operator<Operator, ExecutionSpace, vector>,
                "ksync::cg: the operator must give its rows (op.extent() and op(v, i)) or apply itself "
                "(op.extent() and op.apply(exec, x, y)); see ksync/cg.hpp");
  check_cg_options(where, options);
  check_argument(static_cast<std::int64_t>(op.extent()) >= 1, where, "op.extent() = ", op.extent(),
                 ": the operator has no unknowns");
  if constexpr (is_csr_matrix_v<Operator>)
    static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, typename Operator::memory_space>::accessible,
                  "ksync::cg: exec cannot read the matrix's memory space");
  if constexpr (requires { op.cols(); })  // a matrix (ksync::csr_matrix): CG needs it square
    check_argument(static_cast<std::int64_t>(op.cols()) == static_cast<std::int64_t>(op.extent()), where,
                   "the matrix has ", op.extent(), " rows and ", op.cols(), " columns; CG needs a square one");
  check_argument(static_cast<std::int64_t>(op.extent()) == n, where, "op.extent() = ", op.extent(), " but there are ",
                 n, " unknowns");
  check_argument(static_cast<std::int64_t>(b.extent(0)) == n, where, "b.extent(0) = ", b.extent(0), " but there are ",
                 n, " unknowns");
  check_argument(static_cast<std::int64_t>(x.extent(0)) == n, where, "x.extent(0) = ", x.extent(0), " but there are ",
                 n, " unknowns");
  check_cg_apart(where, b.data(), b.span(), x.data(), x.span());
}

// A preconditioner of yours (ksync::cg's last argument): m.apply(exec, v, z) enqueues z = M^-1 v on exec.
template <class Preconditioner, class ExecutionSpace, class Vector>
concept user_preconditioner = requires(const Preconditioner& m, const ExecutionSpace& exec,
                                       const typename Vector::const_type& v, const Vector& z) { m.apply(exec, v, z); };

// Whether ksync::cuda::cg has a kernel for this operator: the built-in one, and CSR matrices whose index types
// it compiles (bridge/cg.hpp).
template <class Operator>
constexpr bool has_native_operator() {
  if constexpr (is_csr_matrix_v<Operator>) {
#if KSYNC_NATIVE_BRIDGE
    return csr_has_native_twin<typename Operator::index_type, typename Operator::offset_type>;
#else
    return true;  // refused for want of the bridge itself
#endif
  } else {
    return std::is_same_v<Operator, poisson_2d>;
  }
}

// The native forms: ksync::cuda::cg through the bridge, on Kokkos::Cuda, for the built-in operator and CSR
// matrices.
template <class ExecutionSpace, class T, class Operator>
cg_result solve_native(const ExecutionSpace& exec, const Operator& op,
                       const Kokkos::View<const T*, typename ExecutionSpace::memory_space>& b,
                       const Kokkos::View<T*, typename ExecutionSpace::memory_space>& x, cg_form form,
                       const cg_options& options) {
  constexpr const char* where = "ksync::cg";
  check_native_reachable<"ksync::cg", ExecutionSpace, T>(where, "form", form);
  check_argument(has_native_operator<Operator>(), where, "form = ", to_string(form),
                 " runs ksync::cuda's kernels, which take the built-in ksync::poisson_2d and ksync::csr_matrix "
                 "(with 64-bit offsets where the columns are 64-bit) only");
  check_contiguous(where, "b", b);
  check_contiguous(where, "x", x);
  if constexpr (std::is_same_v<Operator, poisson_2d>) {
    return native<"ksync::cg", T>(exec, op.m, b, x, form, options);
  } else if constexpr (has_native_operator<Operator>()) {
    return native<"ksync::cg", T>(exec, op, b, x, form, options);
  } else {
    return {};  // not reached: refused above
  }
}

}  // namespace detail::cg

template <class ExecutionSpace, class T>
class cg_solver {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "ksync::cg_solver: the first template argument must be a Kokkos execution space");
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "ksync::cg supports float and double");

 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using vector = Kokkos::View<T*, memory_space>;
  using const_vector = Kokkos::View<const T*, memory_space>;

  // Allocates the work Views of an n-unknown problem on exec. Throws std::invalid_argument for n < 1 or
  // n >= 2^31.
  cg_solver(const ExecutionSpace& exec, std::int64_t n) : n_(n) {
    detail::check_argument(n >= 1 && n < (std::int64_t{1} << 31), "ksync::cg_solver", "n = ", n,
                           " is outside [1, 2^31)");
    buffers_ = std::make_unique<detail::cg::cg_buffers<ExecutionSpace, T>>(exec, n);
  }

  [[nodiscard]] std::int64_t extent() const noexcept { return n_; }

  // Solves A x = b on exec. Throws std::invalid_argument before any work for extents that differ from the
  // solver's (op.extent(), b, x) or an operator without unknowns, b and x that overlap, bad options
  // (tolerance <= 0 or not finite, max_iterations < 1, check_every < 1), a native form where the bridge
  // cannot take it, or fused / kokkos_graph with an apply operator; and at the start, x left as it was, for
  // NaN or Inf in b or in the initial x (ksync/cg_types.hpp, cg_refusal: read from the sums the start
  // computes anyway). A solve on another instance than the last one's first fences that instance, where
  // the last solve's surplus batches may still be queued.
  template <class Operator>
  cg_result solve(const ExecutionSpace& exec, const Operator& op, const const_vector& b, const vector& x,
                  cg_form form = cg_form::fused, const cg_options& options = {}) {
    detail::cg::check_solve<ExecutionSpace, T>(n_, op, b, x, options);
    if (half_of(form) == strategy_half::native) return detail::cg::solve_native(exec, op, b, x, form, options);
    return solve_portable(exec, op, b, x, form, options, {});
  }

  // PCG with a preconditioner of yours, m (ksync/cg.hpp says what m.apply does), in host_scalars or
  // device_scalars. Throws std::invalid_argument as solve above, and for another form or
  // options.preconditioner = jacobi beside m; at the start, x left as it was, for an M that is not positive
  // definite there.
  template <class Operator, class Preconditioner>
  cg_result solve(const ExecutionSpace& exec, const Operator& op, const const_vector& b, const vector& x, cg_form form,
                  const cg_options& options, const Preconditioner& m) {
    static_assert(detail::cg::user_preconditioner<Preconditioner, ExecutionSpace, vector>,
                  "ksync::cg: a preconditioner must give m.apply(exec, v, z), enqueuing z = M^-1 v on exec for a "
                  "Kokkos::View<const T*, memory_space> v and a Kokkos::View<T*, memory_space> z; see ksync/cg.hpp");
    constexpr const char* where = "ksync::cg";
    detail::cg::check_solve<ExecutionSpace, T>(n_, op, b, x, options);
    detail::check_argument(takes_user_preconditioner(form), where, "form = ", to_string(form),
                           " does not take a preconditioner of yours: host_scalars and device_scalars do (the fused "
                           "and graph forms form the direction inside the operator's pass; the native forms run "
                           "ksync::cuda's kernels, with options.preconditioner = jacobi)");
    detail::check_argument(options.preconditioner == cg_preconditioner::none, where,
                           "options.preconditioner = ", to_string(options.preconditioner),
                           " beside a preconditioner of yours: give one of the two");
    buffers_->make_z(exec);
    return solve_portable(exec, op, b, x, form, options,
                          [m, exec](const const_vector& v, const vector& z) { m.apply(exec, v, z); });
  }

 private:
  // The portable forms, once check_solve passed; `precondition` is a preconditioner of yours or empty.
  template <class Operator>
  cg_result solve_portable(const ExecutionSpace& exec, const Operator& op, const const_vector& b, const vector& x,
                           cg_form form, const cg_options& options,
                           std::function<void(const const_vector&, const vector&)> precondition) {
    constexpr const char* where = "ksync::cg";
    constexpr bool rows = detail::cg::row_operator<Operator, vector>;
    detail::check_argument(rows || !runs_fused_pass(form), where, "form = ", to_string(form),
                           " forms the direction where the operator reads it and needs an operator given by its rows; "
                           "an apply operator runs ",
                           names_where<cg_form>{[](cg_form one) { return is_known(one) && !runs_fused_pass(one); }});
    constexpr bool has_diagonal = detail::cg::diagonal_operator<Operator>;
    const bool jacobi = options.preconditioner == cg_preconditioner::jacobi;
    detail::check_argument(!jacobi || has_diagonal, where,
                           "options.preconditioner = jacobi needs the operator's diagonal as op.diagonal(i), which "
                           "this operator does not give");
    detail::check_cg_recurrence(where, form, options);
    detail::cg::order_behind_last_solve(*buffers_, exec);  // before anything it holds is replaced or reset
    if (jacobi && buffers_->inverse_diagonal.extent(0) != static_cast<std::size_t>(n_))
      buffers_->inverse_diagonal = vector(Kokkos::view_alloc(exec, "ksync::cg::inverse_diagonal"), n_);
    if (options.recurrence == cg_recurrence::pipelined) buffers_->make_pipelined(exec);
    if (options.record_history && buffers_->history.extent(0) < static_cast<std::size_t>(options.max_iterations) + 1)
      buffers_->history = Kokkos::View<double*, memory_space>(Kokkos::view_alloc(exec, "ksync::cg::history"),
                                                              static_cast<std::size_t>(options.max_iterations) + 1);
    std::vector<double> host_history;
    const detail::cg::cg_run<ExecutionSpace, T, Operator> run{
        .exec = exec,
        .op = op,
        .b = b,
        .x = x,
        .options = options,
        .buffers = buffers_.get(),
        .history = options.record_history ? buffers_->history.data() : nullptr,
        .host_history = &host_history,
        .inverse_diagonal = jacobi ? buffers_->inverse_diagonal.data() : nullptr,
        .precondition = std::move(precondition)};
    const auto [state, restarts] =
        detail::cg_run_form_confirmed<T, detail::portable_cg_forms>(where, form, options, run);
    cg_result result = detail::cg::finish(run, state);
    result.restarts = restarts;
    return result;
  }

  std::int64_t n_ = 0;
  std::unique_ptr<detail::cg::cg_buffers<ExecutionSpace, T>> buffers_;
};

// One solve, with work Views allocated for it (cg_solver keeps them between solves). b and x are rank-1
// Views of float or double that exec can access; m, where given, is a preconditioner of yours
// (cg_solver::solve says what it takes and refuses).
template <class ExecutionSpace, class Operator, class BView, class XView, class... Preconditioner>
cg_result cg(const ExecutionSpace& exec, const Operator& op, const BView& b, const XView& x,
             cg_form form = cg_form::fused, const cg_options& options = {}, const Preconditioner&... m) {
  static_assert(sizeof...(Preconditioner) <= 1, "ksync::cg: one preconditioner at the most");
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "ksync::cg: the first argument must be a Kokkos execution space instance");
  static_assert(
      detail::is_usable_view_v<ExecutionSpace, XView, 1> && detail::is_usable_view_v<ExecutionSpace, BView, 1>,
      "ksync::cg: b and x must be rank-1 Kokkos::Views that `exec` can access");
  using T = typename XView::non_const_value_type;
  static_assert(std::is_same_v<T, typename BView::non_const_value_type>, "ksync::cg: b and x must hold one type");
  static_assert(std::is_same_v<typename XView::value_type, T>, "ksync::cg: x must not be const");
  using solver = cg_solver<ExecutionSpace, T>;
  static_assert(std::is_convertible_v<XView, typename solver::vector> &&
                    std::is_convertible_v<BView, typename solver::const_vector>,
                "ksync::cg: b and x must be contiguous rank-1 Views (convertible to Kokkos::View<T*, memory_space>)");
  const typename solver::const_vector b_all = b;
  const typename solver::vector x_all = x;
  const auto n = static_cast<std::int64_t>(x.extent(0));
  detail::cg::check_solve<ExecutionSpace, T>(n, op, b_all, x_all, options);  // before any allocation
  if constexpr (sizeof...(Preconditioner) == 0) {
    if (half_of(form) == strategy_half::native)  // no work Views: ksync::cuda keeps its own
      return detail::cg::solve_native(exec, op, b_all, x_all, form, options);
  }
  solver s(exec, n);
  return s.solve(exec, op, b_all, x_all, form, options, m...);
}

}  // namespace ksync
