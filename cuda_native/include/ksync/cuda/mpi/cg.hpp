// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::mpi::cg — conjugate gradients across the ranks of a communicator, each rank holding its block of
// rows of A (a ksync::cuda::mpi::distributed_csr, ksync/cuda/mpi/spmv.hpp) and the same rows of b and x on its
// GPU; the native twin of ksync::mpi::cg (src/ksync/mpi/cg.hpp). Link ksync::cuda_mpi.
//
//   ksync::cg_result result = ksync::cuda::mpi::cg(stream, comm, a, b, x[, options]);
//   ksync::cg_result result = ksync::cuda::mpi::cg(stream, comm, nccl, a, b, x[, options]);  scalars on the GPUs
//
// Collective and blocking (returns once CG stopped, the same result on every rank, x's last update complete).
// b and x are device memory of the matrix's device holding a.owned_rows() values; x is the initial guess on
// entry and this rank's rows of the solution on return. Without a communicator, options.recurrence picks:
//   classic    one distributed product (the halo travels while the interior rows run) and two global sums,
//              each a local reduction whose value comes home through the mailbox (ksync/cuda/mailbox.hpp, no
//              stream synchronization) and one blocking MPI_Allreduce: the host_scalars form of ksync::cuda::cg
//              across ranks;
//   pipelined  Ghysels and Vanroose's recurrence (ksync/cg_pipelined.hpp): one pass of updates with its first
//              sum and a second reduction an iteration, whose two sums travel in one MPI_Iallreduce while the next
//              product runs, halo and all.
// With `nccl` (a ksync::cuda::node::nccl_communicator joining the same ranks, one GPU each: make_nccl_communicator,
// ksync/cuda/node/mpi.hpp) the classic recurrence runs with every scalar on the GPUs, as ksync::cuda::cg's
// device_scalars form does on one: the halo goes by ncclSend/ncclRecv on the matrix's halo stream, each global sum
// is an ncclAllReduce in place in the device state, and the scalar steps are one-thread kernels, so the host only
// enqueues: it looks at the state after the start and then every options.check_every iterations, one batch
// behind, through the mailbox. Every rank's state holds the same sums, so all ranks enqueue the same batches.
// The scalar steps, the stopping test, Jacobi (options.preconditioner), the history, the true-residual check
// and the refusals of unusable input are those of ksync::cg (ksync/cg_types.hpp). In the MPI form the global sums
// and the failure count they carry are ksync::mpi::cg's (ksync/mpi/cg_sums.hpp): where one rank's own work throws
// mid-solve (a launch, an allocation), it keeps exchanging and summing up to the next global sum, at which every
// rank throws collective_error naming it; no rank is left waiting. In the NCCL form, where the ranks meet only on
// their GPUs, such a rank raises an alarm the others hear while they wait (ksync/mpi/failure_alarm.hpp): every rank
// aborts `nccl` (ncclCommAbort ends the kernels still waiting in it; make another communicator for the next solve)
// and throws collective_error naming the failed rank. Arguments are checked collectively in both: options that
// differ between ranks, or a wrong pointer on one rank, stop every rank before any iterates.
#pragma once

#include <ksync/cg_pipelined.hpp>
#include <ksync/cg_types.hpp>
#include <ksync/cuda/detail/device_memory.hpp>
#include <ksync/cuda/detail/distributed/mpi_alarm.hpp>
#include <ksync/cuda/detail/distributed/rows.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/mailbox.hpp>
#include <ksync/cuda/mpi/spmv.hpp>
#include <ksync/cuda/node/nccl.hpp>
#include <ksync/mpi/cg_sums.hpp>
#include <ksync/mpi/collective.hpp>
#include <ksync/mpi/failure_alarm.hpp>

#include <mpi.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ksync::cuda::mpi {

namespace detail {

inline constexpr const char* cg_where = "ksync::cuda::mpi::cg";
// The solver's products read the ghosts where they arrived: no vector's ghosts have another reader.
inline constexpr auto ghosts_where_they_arrive = ksync::mpi::detail::ghost_destination::where_they_arrive;

// A solve's work vectors on the matrix's device. The product's inputs (p; w and M^-1 w) span the local columns
// (the product fills their ghosts); the rest are this rank's rows. inverse is empty without Jacobi, `input` is w
// itself then.
template <class T>
struct cg_workspace {
  device_buffer<T> p, r, ap, inverse;
  device_buffer<T> w, preconditioned_w, z, s, product;
  device_buffer<T> sums;  // the local sums, read home through the mailbox
  // The NCCL form's scalars and residual history, on the device.
  device_buffer<ksync::detail::cg_scalars<T>> state;
  device_buffer<double> history;

  [[nodiscard]] const T* inverse_or_null() const { return inverse.size() > 0 ? inverse.data() : nullptr; }
  // The classic recurrence's vectors as pointers.
  struct classic_pointers {
    T* p;
    T* ap;
    T* r;
    const T* inverse;
  };
  [[nodiscard]] classic_pointers classic() const { return {p.data(), ap.data(), r.data(), inverse_or_null()}; }
  [[nodiscard]] T* input() const { return preconditioned_w.size() > 0 ? preconditioned_w.data() : w.data(); }
};

// The first Count local sums, home through the mailbox (waits on `stream` alone).
template <class T, int Count>
std::array<T, Count> sums_home(cudaStream_t stream, const device_buffer<T>& sums) {
  std::array<T, Count> values{};
  const mailbox::ticket posted = mailbox::post(stream, sums.data(), sizeof(values));
  mailbox::wait(stream, posted, values.data(), sizeof(values));
  return values;
}

// The start's local part in both recurrences: x into `input` (the product's input, spanning the local
// columns), product = A x, r = b - A x, and this rank's r . M^-1 r, b . M^-1 b and the diagonal's check. With
// keep_preconditioned_r (pipelined) M^-1 r goes into `input`, which the start's second product reads.
template <class T, class Index, class Offset>
std::array<T, 3> local_start(cudaStream_t stream, MPI_Comm comm, const distributed_csr<T, Index, Offset>& a, const T* b,
                             const T* x, T* input, T* product, const cg_workspace<T>& v, bool keep_preconditioned_r,
                             ksync::mpi::detail::local_failure& failure) {
  const std::int64_t n = a.owned_rows();
  unless_failed(failure, [&] {
    if (n > 0)
      KSYNC_CUDA_CHECK(cudaMemcpyAsync(input, x, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDefault, stream));
  });
  spmv_unchecked(stream, comm, a, input, product, failure, ghosts_where_they_arrive);
  std::array<T, 3> sums{};
  unless_failed(failure, [&] {
    ksync::cuda::detail::distributed::cg_start_rows(stream, n, b, static_cast<const T*>(product), v.r.data(),
                                                    v.inverse_or_null(), keep_preconditioned_r ? input : nullptr,
                                                    v.sums.data(), v.sums.data() + 1, v.sums.data() + 2);
    sums = sums_home<T, 3>(stream, v.sums);
  });
  return sums;
}

// One run of classic CG from x: the start, then iterations until the state is done.
template <class T, class Index, class Offset>
ksync::detail::cg_scalars<T> cg_run_from(cudaStream_t stream, MPI_Comm comm, const distributed_csr<T, Index, Offset>& a,
                                         const T* b, T* x, const cg_workspace<T>& v, const cg_options& options,
                                         int first_iteration, double* history) {
  namespace rows = ksync::cuda::detail::distributed;
  using ksync::mpi::detail::sum_over_ranks;
  const std::int64_t n = a.owned_rows();
  T* const p = v.p.data();
  T* const ap = v.ap.data();
  T* const r = v.r.data();
  const T* const inverse = v.inverse_or_null();
  ksync::mpi::detail::local_failure failure;
  ksync::detail::cg_scalars<T> s =
      ksync::mpi::detail::started<T, 3>(comm, cg_where, local_start(stream, comm, a, b, x, p, ap, v, false, failure),
                                        failure, options, first_iteration, history);
  if (s.done != 0) return s;
  unless_failed(failure, [&] { rows::cg_direction_rows(stream, n, T(0), r, inverse, p, /*first=*/true); });
  while (true) {
    const int iteration = s.iteration + 1;
    spmv_unchecked(stream, comm, a, p, ap, failure, ghosts_where_they_arrive);
    std::array<T, 1> p_ap{};
    unless_failed(failure, [&] {
      rows::cg_dot_rows(stream, n, static_cast<const T*>(p), static_cast<const T*>(ap), v.sums.data());
      p_ap = sums_home<T, 1>(stream, v.sums);
    });
    s.p_ap = sum_over_ranks<T, 1>(comm, cg_where, p_ap, failure, iteration)[0];
    const T alpha = s.rho / s.p_ap;
    std::array<T, 1> rho_next{};
    unless_failed(failure, [&] {
      rows::cg_update_rows(stream, n, alpha, static_cast<const T*>(p), static_cast<const T*>(ap), x, r, inverse,
                           v.sums.data());
      rho_next = sums_home<T, 1>(stream, v.sums);
    });
    s.rho_next = sum_over_ranks<T, 1>(comm, cg_where, rho_next, failure, iteration)[0];
    ksync::detail::cg_advance(s, options.tolerance, options.max_iterations, history);
    if (s.done != 0) return s;
    const T beta = s.beta;
    unless_failed(failure, [&] { rows::cg_direction_rows(stream, n, beta, r, inverse, p, /*first=*/false); });
  }
}

// One run of the pipelined recurrence from x. Its start: r = b - A x, w = A M^-1 r, z = s = p = 0, and its four
// sums in one MPI_Allreduce. Then, each iteration, the pass (every update and the two sums of the new r and w),
// whose MPI_Iallreduce travels while the next product A M^-1 w runs: that product needs the new w, not the sums.
// A solve that stops has computed one product it does not use.
template <class T, class Index, class Offset>
ksync::detail::cg_scalars<T> cg_pipelined_run_from(cudaStream_t stream, MPI_Comm comm,
                                                   const distributed_csr<T, Index, Offset>& a, const T* b, T* x,
                                                   const cg_workspace<T>& v, const cg_options& options,
                                                   int first_iteration, double* history) {
  namespace rows = ksync::cuda::detail::distributed;
  using ksync::mpi::detail::sums_in_flight;
  const std::int64_t n = a.owned_rows();
  T* const input = v.input();
  T* const product = v.product.data();
  const bool jacobi = v.inverse.size() > 0;
  ksync::mpi::detail::local_failure failure;
  // r . M^-1 r, b . M^-1 b, the diagonal's check, then w . M^-1 r.
  std::array<T, 4> start{};
  const auto first_three = local_start(stream, comm, a, b, x, input, product, v, true, failure);
  std::copy(first_three.begin(), first_three.end(), start.begin());
  spmv_unchecked(stream, comm, a, input, product, failure, ghosts_where_they_arrive);  // w = A M^-1 r
  // w.even == w.odd: the pass updates w in place, its product having run before it.
  const ksync::detail::cg_pipelined_vectors<T> vectors{.x = x,
                                                       .r = v.r.data(),
                                                       .w = {.even = v.w.data(), .odd = v.w.data()},
                                                       .z = v.z.data(),
                                                       .s = v.s.data(),
                                                       .p = v.p.data(),
                                                       .inverse_diagonal = v.inverse_or_null()};
  T* const preconditioned_w = jacobi ? input : nullptr;
  unless_failed(failure, [&] {
    rows::cg_pipelined_start_rows(stream, n, static_cast<const T*>(product), vectors, preconditioned_w, v.sums.data());
    start[3] = sums_home<T, 1>(stream, v.sums)[0];
  });
  ksync::detail::cg_scalars<T> s =
      ksync::mpi::detail::started<T, 4>(comm, cg_where, start, failure, options, first_iteration, history);
  if (s.done != 0) return s;
  spmv_unchecked(stream, comm, a, input, product, failure, ghosts_where_they_arrive);  // n = A M^-1 w
  while (true) {
    std::array<T, 2> sums{};  // the new r . M^-1 r and w . M^-1 r, with alpha = rho / p.Ap and beta of the state
    unless_failed(failure, [&] {
      rows::cg_pipelined_pass_rows(stream, n, static_cast<const T*>(product), vectors, preconditioned_w, s.rho / s.p_ap,
                                   s.beta, v.sums.data());
      sums = sums_home<T, 2>(stream, v.sums);
    });
    sums_in_flight<T, 3> in_flight(comm, ksync::mpi::detail::with_failure_count<T, 2>(sums, failure));
    spmv_unchecked(stream, comm, a, input, product, failure,
                   ghosts_where_they_arrive);  // the next n = A M^-1 w, while the sums travel
    const int iteration = s.iteration + 1;
    sums = ksync::mpi::detail::sums_unless_failed<T, 3>(comm, cg_where, in_flight.wait(), failure, iteration);
    s.rho_next = sums[0];
    s.delta = sums[1];
    ksync::detail::cg_advance_pipelined(s, options.tolerance, options.max_iterations, history);
    if (s.done != 0) {
      // The last product, unused, still runs: wait for it before its buffers go.
      unless_failed(failure, [&] { KSYNC_CUDA_CHECK(cudaStreamSynchronize(stream)); });
      failure.check_everywhere(comm, cg_where, "the product after " + ksync::mpi::detail::sum_of(iteration));
      return s;
    }
  }
}

// One run of classic CG from x with every scalar on the device (the NCCL form): the global sums are NCCL
// all-reduces in place in the state, the halo NCCL sends and receives, all on the GPUs' streams; the host looks at
// the state after the start, then every check_every iterations one batch behind (cg_look_one_batch_behind). Every
// rank's state holds the same sums, so every rank enqueues the same batches and the same exchanges.
template <class T, class Index, class Offset>
ksync::detail::cg_scalars<T> cg_device_run_from(cudaStream_t stream, const node::nccl_communicator& nccl,
                                                const distributed_csr<T, Index, Offset>& a, const T* b, T* x,
                                                const cg_workspace<T>& v, const cg_options& options,
                                                int first_iteration, double* history,
                                                const std::function<void()>& listen) {
  namespace rows = ksync::cuda::detail::distributed;
  using state_type = ksync::detail::cg_scalars<T>;
  using ksync::cuda::detail::nccl_all_reduce_in_place;
  const std::int64_t n = a.owned_rows();
  const auto vectors = v.classic();  // a struct, not structured bindings: clang < 16 cannot capture those
  T* const p = vectors.p;
  state_type* const state = v.state.data();
  const int* const done = &state->done;
  static_assert(offsetof(state_type, rho_next) == sizeof(T) && offsetof(state_type, delta) == 2 * sizeof(T) &&
                    offsetof(state_type, p_ap) == 3 * sizeof(T),
                "the start sums rho, rho_next, delta and p_ap as four neighbours");
  KSYNC_CUDA_CHECK(cudaMemsetAsync(state, 0, sizeof(state_type), stream));  // delta stays 0: classic
  if (n > 0)
    KSYNC_CUDA_CHECK(cudaMemcpyAsync(p, x, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDefault, stream));
  spmv_nccl_unchecked(stream, nccl, a, p, vectors.ap, done);
  rows::cg_start_rows(stream, n, b, static_cast<const T*>(vectors.ap), vectors.r, vectors.inverse,
                      static_cast<T*>(nullptr), &state->rho, &state->rho_next, &state->p_ap);
  nccl_all_reduce_in_place(nccl, stream, &state->rho, 4, reduce_op::sum);
  rows::cg_state_start(stream, state,
                       {.tolerance = options.tolerance,
                        .max_iterations = options.max_iterations,
                        .first_iteration = first_iteration,
                        .preconditioned = vectors.inverse != nullptr,
                        .pipelined = false},
                       history);
  const auto post = [&] { return mailbox::post(stream, state, sizeof(state_type)); };
  const auto wait = [&](mailbox::ticket posted) {
    state_type s;
    mailbox::wait(stream, posted, &s, sizeof(s), listen);  // listening for another rank's failure
    return s;
  };
  if (const state_type s = wait(post()); s.done != 0) return s;  // converged or refused at the start: no batch
  const auto iterate = [&] {
    rows::cg_state_direction_rows(stream, n, static_cast<const state_type*>(state), static_cast<const T*>(vectors.r),
                                  vectors.inverse, p);  // p = M^-1 r + beta p, beta 0 after the start
    spmv_nccl_unchecked(stream, nccl, a, p, vectors.ap, done);
    rows::cg_dot_rows(stream, n, static_cast<const T*>(p), static_cast<const T*>(vectors.ap), &state->p_ap, done);
    nccl_all_reduce_in_place(nccl, stream, &state->p_ap, 1, reduce_op::sum);
    rows::cg_state_update_rows(stream, n, static_cast<const state_type*>(state), static_cast<const T*>(p),
                               static_cast<const T*>(vectors.ap), x, vectors.r, vectors.inverse, &state->rho_next);
    nccl_all_reduce_in_place(nccl, stream, &state->rho_next, 1, reduce_op::sum);
    rows::cg_state_advance(stream, state, options.tolerance, options.max_iterations, history);
  };
  const int per_batch = std::min(options.check_every, options.max_iterations);
  return ksync::detail::cg_look_one_batch_behind(
      per_batch, options.max_iterations,
      [&] {
        for (int k = 0; k < per_batch; ++k)
          iterate();
      },
      post, wait);
}

// NCCL connects a communicator's ranks on first use, on the host inside the NCCL calls: a rank that failed before
// its first exchange or sum would leave the others waiting there, where no failure alarm reaches. So the first
// solve of a matrix through a communicator runs the halo and a global sum once before anything else can fail,
// and every rank learns that they completed everywhere; the matrix remembers the communicator (its serial).
template <class T, class Index, class Offset>
void connect_through_nccl(MPI_Comm comm, const node::nccl_communicator& nccl,
                          const distributed_csr<T, Index, Offset>& a, const cg_workspace<T>& v) {
  const int here = a.nccl_connected() == nccl.serial() ? 1 : 0;
  int everywhere = 0;
  KSYNC_MPI_CHECK(MPI_Allreduce(&here, &everywhere, 1, MPI_INT, MPI_MIN, comm));
  if (everywhere == 1) return;
  ksync::mpi::detail::local_failure connecting;
  try {
    const halo_plan& plan = a.plan();
    const cudaStream_t halo = a.halo_stream();
    if (plan.exchanges())  // whatever the buffers hold: the solve's start sends and sums again
      ksync::cuda::detail::nccl_exchange_halo(nccl, halo, plan, static_cast<const T*>(a.device_send_buffer()),
                                              v.p.data() + plan.owned);
    ksync::cuda::detail::nccl_all_reduce_in_place(nccl, halo, v.sums.data(), 4, reduce_op::sum);
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(halo));
  } catch (...) {
    connecting.hold();
  }
  connecting.check_everywhere(comm, cg_where, "connecting the ranks through NCCL");
  a.set_nccl_connected(nccl.serial());
}

// The work vectors and M^-1's entries, made on every rank before any rank exchanges: where one rank cannot (no
// room on its GPU, say), every rank stops here with its message.
template <class T, class Index, class Offset>
cg_workspace<T> make_workspace(cudaStream_t stream, MPI_Comm comm, const distributed_csr<T, Index, Offset>& a,
                               const cg_options& options, bool scalars_on_device) {
  const auto rows = static_cast<std::size_t>(a.owned_rows());
  const auto columns = static_cast<std::size_t>(a.local_columns());
  const bool jacobi = options.preconditioner == cg_preconditioner::jacobi;
  cg_workspace<T> v;
  ksync::mpi::detail::local_failure setup;
  try {
    const auto vector = [&](std::size_t count) {
      return count > 0 ? device_buffer<T>(count, cg_where) : device_buffer<T>();
    };
    v.r = vector(rows);
    v.sums = vector(4);
    if (scalars_on_device) {
      v.state = device_buffer<ksync::detail::cg_scalars<T>>(1, cg_where);
      if (options.record_history)
        v.history = device_buffer<double>(static_cast<std::size_t>(options.max_iterations) + 1, cg_where);
    }
    if (jacobi) {
      v.inverse = vector(rows);
      ksync::cuda::detail::distributed::inverse_diagonal(stream, a.local_matrix(), v.inverse.data());
    }
    if (options.recurrence == cg_recurrence::classic) {
      v.p = vector(columns);
      v.ap = vector(rows);
    } else {
      v.w = vector(columns);
      if (jacobi) v.preconditioned_w = vector(columns);
      v.z = vector(rows);
      v.s = vector(rows);
      v.p = vector(rows);
      v.product = vector(rows);
    }
  } catch (...) {
    setup.hold();
  }
  setup.check_everywhere(comm, cg_where, "setting up the solve");
  return v;
}

// Every rank checks its own arguments (and what `more` checks, throwing std::invalid_argument), then all learn
// whether any failed; the options must agree.
template <class T, class Index, class Offset, class MoreChecks>
void check_solve_arguments(MPI_Comm comm, const distributed_csr<T, Index, Offset>& a, const T* b, const T* x,
                           const cg_options& options, const MoreChecks& more) {
  const std::int64_t n = a.owned_rows();
  std::string problem;
  try {
    ksync::detail::check_cg_options(cg_where, options);
    check_matrix_here(cg_where, comm, a);
    constexpr const char* use = "the solver reads b and writes x";
    check_vector(cg_where, a, b, "b", n, use);
    check_vector(cg_where, a, x, "x", n, use);
    ksync::detail::check_cg_apart(cg_where, b, static_cast<std::size_t>(n), x, static_cast<std::size_t>(n));
    more();
  } catch (const std::exception& error) {  // invalid_argument, or cuda_error from the pointer query
    problem = error.what();
  }
  ksync::mpi::check_collectively(comm, problem.empty(), cg_where, problem);
  ksync::mpi::detail::check_options_agree(comm, cg_where, options);
}

// The result of a solve whose last state is `s`, `history` (host) cut to the iterations it ran.
template <class T>
cg_result result_of(const ksync::detail::cg_scalars<T>& s, int restarts, const cg_options& options,
                    std::vector<double>&& history) {
  ksync::detail::check_cg_refusal(cg_where, s);
  cg_result result = ksync::detail::cg_result_of(s);
  result.restarts = restarts;
  if (options.record_history) {
    history.resize(static_cast<std::size_t>(s.iteration) + 1);
    result.residual_history = std::move(history);
  }
  return result;
}

}  // namespace detail

template <class T, class Index, class Offset>
cg_result cg(cudaStream_t stream, MPI_Comm comm, const distributed_csr<T, Index, Offset>& a, const T* b, T* x,
             const cg_options& options = {}) {
  detail::check_solve_arguments(comm, a, b, static_cast<const T*>(x), options, [] {});
  const detail::cg_workspace<T> v = detail::make_workspace(stream, comm, a, options, /*scalars_on_device=*/false);
  std::vector<double> history(options.record_history ? static_cast<std::size_t>(options.max_iterations) + 1 : 0);
  double* const history_data = options.record_history ? history.data() : nullptr;
  const bool classic = options.recurrence == cg_recurrence::classic;
  const auto [s, restarts] = ksync::detail::cg_confirm_on_true_residual(options, [&](int first_iteration) {
    return classic ? detail::cg_run_from(stream, comm, a, b, x, v, options, first_iteration, history_data)
                   : detail::cg_pipelined_run_from(stream, comm, a, b, x, v, options, first_iteration, history_data);
  });
  // No synchronization here: x's last update ran in a reduction whose value came home through the mailbox.
  return detail::result_of(s, restarts, options, std::move(history));
}

// The form whose scalars stay on the GPUs (see the top of the file): `nccl` joins the ranks of comm, one GPU each
// (ksync::cuda::mpi::make_nccl_communicator), rank for rank. Classic recurrence only.
template <class T, class Index, class Offset>
cg_result cg(cudaStream_t stream, MPI_Comm comm, node::nccl_communicator& nccl,
             const distributed_csr<T, Index, Offset>& a, const T* b, T* x, const cg_options& options = {}) {
  detail::check_solve_arguments(comm, a, b, static_cast<const T*>(x), options, [&] {
    ksync::detail::check_argument(node::has_nccl(), detail::cg_where,
                                  "the NCCL form needs a build of ksync with NCCL (node::has_nccl() is false)");
    ksync::detail::check_argument(!nccl.aborted(), detail::cg_where,
                                  "nccl was aborted (an earlier solve on it failed on some rank): make another");
    ksync::detail::check_argument(nccl.ranks() == ksync::mpi::size_of(comm) && nccl.rank() == ksync::mpi::rank_of(comm),
                                  detail::cg_where, "nccl is rank ", nccl.rank(), " of ", nccl.ranks(),
                                  " but this is rank ", ksync::mpi::rank_of(comm), " of ", ksync::mpi::size_of(comm),
                                  " of comm: the communicators must match rank for rank");
    ksync::detail::check_argument(options.recurrence == cg_recurrence::classic, detail::cg_where,
                                  "options.recurrence = ", to_string(options.recurrence),
                                  ": the NCCL form runs the classic recurrence (the MPI form runs both)");
  });
  // The batches of iterations each rank enqueues, NCCL calls and all, follow check_every: it must agree too.
  ksync::mpi::detail::check_same_everywhere(comm, detail::cg_where, "options.check_every", options.check_every);
  const detail::cg_workspace<T> v = detail::make_workspace(stream, comm, a, options, /*scalars_on_device=*/true);
  double* const history = options.record_history ? v.history.data() : nullptr;
  detail::connect_through_nccl(comm, nccl, a, v);
  // From here the ranks meet only inside NCCL: a rank whose work throws raises the alarm, the others hear it in
  // their waits, and every rank abandons the solve and learns who failed (detail/distributed/mpi_alarm.hpp).
  namespace distributed = ksync::cuda::detail::distributed;
  ksync::mpi::detail::failure_alarm& alarm = ksync::mpi::detail::alarm_of(comm);
  const std::function<void()> listen = distributed::listen_for(alarm);
  ksync::mpi::detail::local_failure failure;
  bool heard = false;
  std::pair<ksync::detail::cg_scalars<T>, int> last{};
  std::vector<double> host_history;
  try {
    last = ksync::detail::cg_confirm_on_true_residual(options, [&](int first_iteration) {
      return detail::cg_device_run_from(stream, nccl, a, b, x, v, options, first_iteration, history, listen);
    });
    // The batch enqueued past the converged one still runs its (idle) steps and exchanges on every rank: wait for
    // it before the work vectors go, and before the history is read.
    distributed::synchronize_listening(stream, listen);
    if (options.record_history) {  // on `stream`, now idle: a copy on the default stream would wait for others
      host_history.resize(static_cast<std::size_t>(last.first.iteration) + 1);
      KSYNC_CUDA_CHECK(cudaMemcpyAsync(host_history.data(), history, host_history.size() * sizeof(double),
                                       cudaMemcpyDeviceToHost, stream));
      KSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  } catch (const distributed::another_rank_failed&) {
    heard = true;
  } catch (...) {
    // Where another rank failed first, this error may be its echo (an NCCL call failing after a peer aborted):
    // the first failure is the one to report.
    if (alarm.heard()) {
      heard = true;
    } else {
      failure.hold();
      alarm.raise();
    }
  }
  if (heard || failure.failed()) distributed::abandon(nccl, stream, a.halo_stream());
  if (alarm.settle() > 0) {  // also where this rank had finished: the communicator is no longer whole
    distributed::abandon(nccl, stream, a.halo_stream());
    failure.check_everywhere(comm, detail::cg_where, "the NCCL form's iterations");  // throws on every rank
  }
  return detail::result_of(last.first, last.second, options, std::move(host_history));
}

}  // namespace ksync::cuda::mpi
