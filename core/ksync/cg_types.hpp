// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What both halves' conjugate-gradient solvers share (plain C++): the forms, the options, the result and
// the argument checks, so that ksync::cg and ksync::cuda::cg take the same arguments and report the same
// way. docs/solvers.md measures every form.
#pragma once

#include <ksync/detail/arguments.hpp>
#include <ksync/detail/host_device.hpp>
#include <ksync/stencil.hpp>
#include <ksync/types.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ksync {

// How a CG iteration is driven; they differ only in where its two dot products go and what separates its
// steps (every form runs the same arithmetic, up to the order of the dots' partial sums):
//   host_scalars             the dots come back to the host as blocking reductions; the host computes
//                            alpha and beta and launches the next step with them (what applications write);
//   device_scalars           the dots land in device scalars, small kernels compute alpha and beta on the
//                            device and the host looks at the residual every `check_every` iterations;
//   fused                    as device_scalars with fewer passes over memory: p = r + beta p is fused into
//                            the matrix-vector product with p.Ap, and the x/r update with r.r;
//   kokkos_graph             the fused iteration, check_every of them per Kokkos::Graph submission (portable);
//   cuda_graph               the same as a CUDA graph (native);
//   persistent_grid_sync     the whole solve in one cooperative kernel, grid.sync() between steps (native);
//   persistent_spin_barrier  the same with ksync's acquire/release spin barrier (native);
//   persistent_cluster       the same on one thread-block cluster of at most 16 blocks, cluster.sync() between
//                            steps (native, sm_90): for small systems, where the barriers decide an iteration.
// Native forms are reachable from ksync::cg on Kokkos::Cuda through the bridge.
enum class cg_form {
  host_scalars,
  device_scalars,
  fused,
  kokkos_graph,
  cuda_graph,
  persistent_grid_sync,
  persistent_spin_barrier,
  persistent_cluster,
};

// What cg_form's rows say of a form besides its name and half.
//   fused_pass  an iteration is one fused pass per matrix product (the direction update and the dots ride
//               in the operator's pass), so the form can run the pipelined recurrence; otherwise it runs one
//               pass per vector operation, and a preconditioner of yours can be enqueued between them;
//   one_launch  the whole solve is one kernel launch whose grid stays resident (tuning.blocks_per_multiprocessor
//               bounds it, and a grid that cannot be resident at once is refused);
//   graph       the iterations are captured once into a graph kept between solves, replayed while what it
//               captured (vectors, operator, options) is unchanged.
struct cg_form_columns {
  bool fused_pass;
  bool one_launch;
  bool graph;
};

// One row per form, in the enum's order: every name, half and column comes from here (both: each half has
// its own).
// A table read across (the comment names its columns), so positional: clang-format and the designated-
// initializer check would break it into blocks of one field a line.
// clang-format off
// NOLINTBEGIN(modernize-use-designated-initializers)
inline constexpr strategy_row<cg_form, cg_form_columns> cg_form_rows[] = {
    // {id, name, half, {fused_pass, one_launch, graph}}
    {cg_form::host_scalars,            "host_scalars",            strategy_half::both,     {false, false, false}},
    {cg_form::device_scalars,          "device_scalars",          strategy_half::both,     {false, false, false}},
    {cg_form::fused,                   "fused",                   strategy_half::both,     {true, false, false}},
    {cg_form::kokkos_graph,            "kokkos_graph",            strategy_half::portable, {true, false, true}},
    {cg_form::cuda_graph,              "cuda_graph",              strategy_half::native,   {true, false, true}},
    {cg_form::persistent_grid_sync,    "persistent_grid_sync",    strategy_half::native,   {true, true, false}},
    {cg_form::persistent_spin_barrier, "persistent_spin_barrier", strategy_half::native,   {true, true, false}},
    {cg_form::persistent_cluster,      "persistent_cluster",      strategy_half::native,   {true, true, false}},
};
// NOLINTEND(modernize-use-designated-initializers)
// clang-format on
static_assert(detail::rows_follow_the_enum(cg_form_rows), "cg_form_rows must list the cg_form values in order");

constexpr const auto& strategy_rows(cg_form /*tag*/) noexcept {
  return cg_form_rows;
}

inline constexpr auto all_cg_forms = detail::ids_of(cg_form_rows);

// The form named `name` (as to_string spells it); throws std::invalid_argument for any other name.
[[nodiscard]] inline cg_form cg_form_from_string(std::string_view name) {
  return detail::id_named(cg_form_rows, name, "ksync::cg_form_from_string", "form");
}

// Whether `form` iterates in one fused pass (its row's fused_pass): fused, the graph forms and the
// persistent forms. False for a value past the rows.
constexpr bool runs_fused_pass(cg_form form) noexcept {
  return is_known(form) && columns_of(form).fused_pass;
}

// Whether `form` runs the pipelined recurrence: the forms of one fused pass; host_scalars and device_scalars
// run one pass per vector operation.
constexpr bool runs_pipelined(cg_form form) noexcept {
  return runs_fused_pass(form);
}

// Whether `form` takes a preconditioner of yours (ksync::cg's overload with one, portable half): the forms of
// one pass per vector operation, between which your z = M^-1 r is enqueued. The fused and graph forms form
// the direction inside the operator's pass, and the native forms run ksync::cuda's kernels.
constexpr bool takes_user_preconditioner(cg_form form) noexcept {
  return is_known(form) && !columns_of(form).fused_pass;
}

// Preconditioning. none: classic CG. jacobi: PCG with M = diag(A) (the operator gives its diagonal as
// op.diagonal(i): ksync::poisson_2d, ksync::csr_matrix and ksync::cuda::csr_matrix do), z = M^-1 r formed
// where it is read, so an iteration moves one more vector (M^-1's) and keeps the same number of reductions.
// With jacobi the stopping test and the reported residuals are in the M^-1 norm, sqrt(r . M^-1 r) /
// sqrt(b . M^-1 b) (PETSc's natural norm, -ksp_norm_type natural), which costs no sum of its own. A
// diagonal entry that is zero, negative or not finite is refused at the start (cg_refusal), x left as it was.
enum class cg_preconditioner { none, jacobi };
inline constexpr std::string_view cg_preconditioner_names[] = {"none", "jacobi"};  // in the enum's order

constexpr std::string_view to_string(cg_preconditioner preconditioner) noexcept {
  return detail::name_in(cg_preconditioner_names, preconditioner);
}

// How the iterates are updated.
//   classic    the Hestenes-Stiefel recurrence: two dependent reductions an iteration (p.Ap, then r.r), so the
//              forms that keep the grid busy need two grid-wide synchronizations an iteration;
//   pipelined  Ghysels and Vanroose's pipelined CG (Parallel Computing 40, 2014): the same iterates in exact
//              arithmetic, with s = A p, w = A u and z = A M^-1 s carried by recurrences, so that both sums
//              an iteration (r . M^-1 r and w . M^-1 r) come from one reduction and one synchronization;
//              it moves more memory (twelve vector passes an iteration against ten) and its recurrences
//              drift from b - A x further than classic CG's near the rounding floor, so convergence is
//              always confirmed on the true residual (check_true_residual below). Forms: fused,
//              kokkos_graph, cuda_graph and the persistent ones; host_scalars and device_scalars refuse it.
// docs/solvers.md measures both and says what the drift costs.
enum class cg_recurrence { classic, pipelined };
inline constexpr std::string_view cg_recurrence_names[] = {"classic", "pipelined"};  // in the enum's order

constexpr std::string_view to_string(cg_recurrence recurrence) noexcept {
  return detail::name_in(cg_recurrence_names, recurrence);
}

// When CG stops: the relative residual ||r|| / ||b|| (with jacobi: in the M^-1 norm) is at most `tolerance`,
// or `max_iterations` iterations have run. The forms that keep their scalars on the device decide on the device and the
// host looks every `check_every` iterations (work enqueued past convergence returns at once, leaving x as it was).
// r is the recurrence's residual, which drifts from b - A x near the rounding floor. With check_true_residual
// (always with the pipelined recurrence) a solve that stopped after iterating computes b - A x from x: if the
// recurrence had converged and b - A x is above the tolerance, CG restarts from x (r = b - A x, the first
// direction r) with the iterations left, until the true residual meets the tolerance or max_iterations have
// run in all; the residual reported is then always b - A x's. The check costs one product with A and two sums
// a solve; a restart starts the Krylov space anew.
struct cg_options {
  double tolerance = 1e-6;
  int max_iterations = 1000;
  int check_every = 16;         // device_scalars, fused, the graph forms: iterations between two host looks
  bool record_history = false;  // fill cg_result::residual_history (kept on the device, copied once at the end)
  cg_preconditioner preconditioner = cg_preconditioner::none;
  cg_recurrence recurrence = cg_recurrence::classic;
  bool check_true_residual = false;

  // Whether a solve that iterated measures b - A x (and restarts where the recurrence drifted).
  [[nodiscard]] constexpr bool confirms_on_true_residual() const noexcept {
    return check_true_residual || recurrence == cg_recurrence::pipelined;
  }
};

struct cg_result {
  int iterations = 0;              // iterations run (0 when the initial guess already met the tolerance)
  double relative_residual = 0.0;  // ||r|| / ||b|| after the last one: from b - A x with
                                   // cg_options::check_true_residual (or pipelined), else from the recurrence
  bool converged = false;          // relative_residual <= tolerance
  int restarts = 0;                // times the true residual was above the tolerance and CG restarted from x
  // With record_history: the relative residual before the first iteration and after each one
  // (iterations + 1 values); at a restart, the true residual replaces the recurrence's entry.
  std::vector<double> residual_history;
};

namespace detail {

// Throws std::invalid_argument (naming `where`, the field and its value) unless `options` can be used.
inline void check_cg_options(const char* where, const cg_options& options) {
  check_argument(options.tolerance > 0.0 && std::isfinite(options.tolerance), where,
                 "options.tolerance = ", options.tolerance, " must be positive and finite");
  check_argument(options.max_iterations >= 1, where, "options.max_iterations = ", options.max_iterations,
                 " must be at least 1");
  check_argument(options.check_every >= 1, where, "options.check_every = ", options.check_every, " must be at least 1");
  check_argument(detail::named_in(cg_preconditioner_names, options.preconditioner), where,
                 "options.preconditioner = ", static_cast<int>(options.preconditioner), " is not a cg_preconditioner (",
                 detail::listed(cg_preconditioner_names), ")");
  check_argument(detail::named_in(cg_recurrence_names, options.recurrence), where,
                 "options.recurrence = ", static_cast<int>(options.recurrence), " is not a cg_recurrence (",
                 detail::listed(cg_recurrence_names), ")");
}

// Throws std::invalid_argument unless `form` runs the recurrence the options ask for (runs_pipelined).
inline void check_cg_recurrence(const char* where, cg_form form, const cg_options& options) {
  check_argument(options.recurrence != cg_recurrence::pipelined || runs_pipelined(form), where,
                 "options.recurrence = pipelined needs one fused pass an iteration; form = ", to_string(form),
                 " runs one pass per vector operation (use one of ", names_where<cg_form>{runs_pipelined}, ")");
}

// The state every device-side form keeps where its kernels read it: the scalars of the recurrence and the
// stopping decision. Plain data (both halves' kernels read and write it; the host reads a copy).
// With jacobi every r.r below is r . M^-1 r, and b.b is b . M^-1 b.
// The pipelined recurrence's one reduction lands in rho_next and delta, which stay adjacent.
template <class T>
struct cg_scalars {
  T rho = 0;          // r.r of the current residual
  T rho_next = 0;     // r.r after the update (the second dot's result)
  T delta = 0;        // pipelined: w . r after the update (w = A r carried by its recurrence)
  T p_ap = 0;         // p.Ap (the first dot's result; pipelined: formed from delta); before the start's test, with
                      // jacobi, the diagonal's check (0, or NaN where an entry is unusable: cg_refusal)
  T beta = 0;         // the next direction's weight, rho_next / rho of the last step (0 before the first)
  T b_norm = 0;       // ||b||, the residual's scale
  int iteration = 0;  // iterations completed
  int done = 0;       // 1 once converged or out of iterations: later steps leave every vector alone
  int converged = 0;
  int refused = 0;  // a cg_refusal: the start found b or x unusable (done is then set, x left as it was)
};

// Why the start refused a problem: the two sums it computes anyway (b.b and r.r for r = b - A x) are not
// finite. NaN or Inf in b (or entries whose squares overflow T) make b.b so; NaN or Inf in the initial x,
// or an A x that overflows, make r.r so. Nothing else is read, so the check costs no pass of its own.
// With jacobi the start also sums w - w over M^-1's entries w: 0 where an entry is usable, NaN where diag(A) is
// zero, negative or not finite (or 1 / d overflows). With a preconditioner of yours (portable host_scalars
// and device_scalars, ksync/cg.hpp) the two sums are b . M^-1 b and r . M^-1 r: a negative one shows an M that
// is not positive definite.
enum cg_refusal : int {
  cg_accepted = 0,
  cg_b_not_finite = 1,
  cg_x_not_finite = 2,
  cg_diagonal_not_positive = 3,
  cg_preconditioner_not_positive = 4
};

// Finite without <cmath>'s classification, the same in host and device code: x - x is 0 for every finite
// x and NaN for NaN and both infinities.
template <class T>
KSYNC_HOST_DEVICE constexpr bool cg_finite(T value) {
  return value - value == T(0);
}

// The scalar steps of CG, written once for both halves' kernels (and the host, for host_scalars).

// What the start's scalar step needs beside the state.
struct cg_start_step {
  double tolerance = 0;
  int max_iterations = 0;
  int first_iteration = 0;      // iterations run before this start: 0, or where a restart (check_true_residual) begins
  bool preconditioned = false;  // jacobi: p_ap holds the diagonal's check
  bool user_preconditioned = false;  // a preconditioner of yours: rho and rho_next must not be negative
  bool pipelined = false;            // delta holds w . r for w = A r of the start: the first p.Ap
};

// After rho = r.r and rho_next = b.b of the start (and, preconditioned, the diagonal's check in p_ap): the
// residual's scale and the first test.
template <class T>
KSYNC_HOST_DEVICE void cg_start(cg_scalars<T>& s, const cg_start_step& step, double* history) {
  s.refused = step.preconditioned && !cg_finite(s.p_ap)                         ? cg_diagonal_not_positive
              : !cg_finite(s.rho_next)                                          ? cg_b_not_finite
              : !cg_finite(s.rho)                                               ? cg_x_not_finite
              : step.user_preconditioned && (s.rho_next < T(0) || s.rho < T(0)) ? cg_preconditioner_not_positive
                                                                                : cg_accepted;
  s.p_ap = step.pipelined ? s.delta : T(0);
  s.iteration = step.first_iteration;
  if (s.refused != cg_accepted) {  // nothing runs: every later step sees done
    s.done = 1;
    s.converged = 0;
    if (history != nullptr) history[step.first_iteration] = 0.0;
    return;
  }
  s.b_norm = std::sqrt(s.rho_next);
  const double relative = s.b_norm > 0 ? std::sqrt(static_cast<double>(s.rho)) / static_cast<double>(s.b_norm) : 0.0;
  if (history != nullptr) history[step.first_iteration] = relative;
  s.beta = 0;
  s.converged = (s.b_norm == 0 || relative <= step.tolerance) ? 1 : 0;
  s.done = s.converged != 0 || step.first_iteration >= step.max_iterations ? 1 : 0;
}

// After rho_next = r.r of an iteration: count it, record and test the residual, and prepare beta.
// `history` may be null (nothing recorded).
template <class T>
KSYNC_HOST_DEVICE void cg_advance(cg_scalars<T>& s, double tolerance, int max_iterations, double* history) {
  const int iteration = s.iteration + 1;
  const double relative = std::sqrt(static_cast<double>(s.rho_next)) / static_cast<double>(s.b_norm);
  if (history != nullptr) history[iteration] = relative;
  s.beta = s.rho_next / s.rho;
  s.rho = s.rho_next;
  s.iteration = iteration;
  if (relative <= tolerance) {
    s.done = 1;
    s.converged = 1;
  } else if (iteration >= max_iterations) {
    s.done = 1;
  }
}

// The pipelined recurrence's scalar step, after its one reduction left r.r in rho_next and w.r in delta:
// cg_advance, then the next p.Ap = delta - beta^2 p.Ap (Ghysels and Vanroose's alpha = rho / (delta - beta rho /
// alpha_old), with alpha_old = rho_old / p.Ap_old), so that every pass forms alpha = rho / p.Ap as classic
// CG does.
template <class T>
KSYNC_HOST_DEVICE void cg_advance_pipelined(cg_scalars<T>& s, double tolerance, int max_iterations, double* history) {
  const T p_ap = s.p_ap;
  cg_advance(s, tolerance, max_iterations, history);
  s.p_ap = s.delta - s.beta * s.beta * p_ap;
}

// The relative residual the state stands at.
template <class T>
KSYNC_HOST_DEVICE double cg_relative_residual(const cg_scalars<T>& s) {
  return s.b_norm > 0 ? std::sqrt(static_cast<double>(s.rho)) / static_cast<double>(s.b_norm) : 0.0;
}

// The batch loop of the forms whose scalars stay on the device, for both halves: enqueue_batch() enqueues
// per_batch iterations, post() enqueues a look at the state and returns its ticket, wait(ticket) returns the
// state it saw. The host looks at batch k while batch k + 1 runs (one post ahead: the looks need two
// slots), and stops enqueueing once the device says done; batches past that return at once on the device.
template <class EnqueueBatch, class Post, class Wait>
auto cg_look_one_batch_behind(int per_batch, int max_iterations, EnqueueBatch&& enqueue_batch, Post&& post,
                              Wait&& wait) {
  int enqueued = per_batch;
  enqueue_batch();
  auto pending = post();
  while (true) {
    const bool more = enqueued < max_iterations;
    decltype(pending) next{};
    if (more) {
      enqueue_batch();
      enqueued += per_batch;
      next = post();
    }
    const auto s = wait(pending);
    if (s.done != 0 || !more) return s;  // max_iterations sets done: `more` ends only with it
    pending = next;
  }
}

// What a graph of CG iterations (cuda_graph, kokkos_graph) was built with: a graph is rebuilt when any of
// these changes. `shape`: the launch shape the graph depends on (the native grid's blocks, the Kokkos
// instance's id).
struct cg_graph_key {
  const void* x = nullptr;
  const double* history = nullptr;
  double tolerance = 0;
  int max_iterations = 0;
  int iterations = 0;
  std::uint32_t shape = 0;
  const void* inverse_diagonal = nullptr;  // jacobi's M^-1 (null: none)
  cg_recurrence recurrence = cg_recurrence::classic;
  friend bool operator==(const cg_graph_key&, const cg_graph_key&) = default;
};

// Throws std::invalid_argument unless b's count elements and x's lie apart: x is written while b is read.
template <class T>
void check_cg_apart(const char* where, const T* b, std::size_t b_count, const T* x, std::size_t x_count) {
  const auto b_begin = reinterpret_cast<std::uintptr_t>(b);
  const auto x_begin = reinterpret_cast<std::uintptr_t>(x);
  check_argument(b_begin + b_count * sizeof(T) <= x_begin || x_begin + x_count * sizeof(T) <= b_begin, where,
                 "b = ", static_cast<const void*>(b), " and x = ", static_cast<const void*>(x),
                 " overlap: x is written while b is read");
}

// Throws std::invalid_argument, naming `where` and the argument, when the start refused the problem.
template <class T>
void check_cg_refusal(const char* where, const cg_scalars<T>& s) {
  check_argument(s.refused != cg_diagonal_not_positive, where,
                 "options.preconditioner = jacobi needs a positive, finite diagonal; the operator's has an entry "
                 "that is zero, negative or not finite; x was left as it was");
  check_argument(s.refused != cg_preconditioner_not_positive, where,
                 "the preconditioner is not positive definite: b . M^-1 b = ", static_cast<double>(s.rho_next),
                 " and r . M^-1 r = ", static_cast<double>(s.rho),
                 " for r = b - A x (CG needs both >= 0); x was left as it was");
  check_argument(s.refused != cg_b_not_finite, where,
                 "b holds NaN or Inf, or entries whose squares overflow (b.b = ", static_cast<double>(s.rho_next),
                 "); x was left as it was");
  check_argument(s.refused != cg_x_not_finite, where,
                 "the initial x holds NaN or Inf, or A x overflows (r.r = ", static_cast<double>(s.rho),
                 " for r = b - A x); x was left as it was");
}

// A solve confirmed on the true residual (cg_options::confirms_on_true_residual), for both halves:
// solve_from(first_iteration) runs the form from x (its start forms r = b - A x) and returns the final state;
// while it iterated, it runs again from where it stopped, and that start's test is the true residual's: where
// the recurrence had converged, CG goes on from x if b - A x is above the tolerance; where max_iterations ran
// out, the start only measures b - A x (no iteration is left), so the residual reported is always the true
// one. Returns the last state and the restarts that iterated.
template <class SolveFrom>
auto cg_confirm_on_true_residual(const cg_options& options, SolveFrom&& solve_from) {
  auto s = solve_from(0);
  int restarts = 0;
  if (!options.confirms_on_true_residual()) return std::make_pair(s, restarts);
  int first = 0;
  while (s.refused == 0 && s.iteration > first) {
    first = s.iteration;
    s = solve_from(first);
    if (s.iteration > first) ++restarts;
  }
  return std::make_pair(s, restarts);
}

// Both halves' solve once the arguments are checked and `run` (the half's cg_run) is set up: the half's table
// of forms, Forms, runs `form` from run under cg_confirm_on_true_residual, each start from a copy of run that
// begins counting at its first_iteration. Returns what cg_confirm_on_true_residual returns.
template <class T, class Forms, class Run>
auto cg_run_form_confirmed(const char* where, cg_form form, const cg_options& options, const Run& run) {
  return cg_confirm_on_true_residual(options, [&](int first_iteration) {
    auto from = run;
    from.first_iteration = first_iteration;
    cg_scalars<T> s;
    Forms::dispatch(where, form, [&]<class Form>() { s = Form::run(from); });
    return s;
  });
}

// The result a final state reports (the history is each half's to add).
template <class T>
cg_result cg_result_of(const cg_scalars<T>& s) {
  cg_result result;
  result.iterations = s.iteration;
  result.relative_residual = cg_relative_residual(s);
  result.converged = s.converged != 0;
  return result;
}

}  // namespace detail

}  // namespace ksync
