// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::cg (device/cg.hpp): the solver's buffers, the argument checks, and the dispatch to the form's
// row of native_cg_forms (detail/cg/forms.cuh), for any operator. Private to src/device: cg.cu instantiates
// it for the built-in operator, cg_csr.cu for the CSR matrices.
#pragma once

#include <ksync/cuda/detail/cg/forms.cuh>
#include <ksync/cuda/detail/device_memory.hpp>
#include <ksync/cuda/device/cg.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/runtime.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <tuple>
#include <utility>

namespace ksync::cuda {
namespace detail {

inline constexpr const char* where = "ksync::cuda::cg";

// The kernels walk the unknowns with 32-bit grid-stride indices: the last index plus a grid's stride (about 2^20
// threads on an H200; 2^22 leaves room for larger GPUs) must stay below 2^31.
inline constexpr std::int64_t max_unknowns = INT32_MAX - (std::int64_t{1} << 22);
inline constexpr std::int64_t max_m = 46295;  // the largest m with m * m <= max_unknowns
static_assert(max_m * max_m <= max_unknowns && (max_m + 1) * (max_m + 1) > max_unknowns);

inline void check_extent(std::int64_t m) {
  check_argument(m >= 1, where, "m = ", m, " must be at least 1");
  check_argument(m <= max_m, where, "m = ", m,
                 " gives m * m unknowns, more than the kernels' 32-bit grid-stride indices hold (m <= ", max_m, ")");
}

template <class T, class Index, class Offset>
void check_matrix_extent(const csr_matrix<T, Index, Offset>& a) {
  check_argument(a.rows() == a.cols(), where, "the matrix has ", a.rows(), " rows and ", a.cols(),
                 " columns; CG needs a square one");
  check_argument(a.rows() >= 1 && a.rows() <= max_unknowns, where, "a.rows() = ", a.rows(), " is outside [1, ",
                 max_unknowns, "]: the kernels walk rows with 32-bit grid-stride indices");
}

template <class T>
std::unique_ptr<cg_buffers<T>> make_buffers(std::int64_t unknowns) {
  auto buffers = std::make_unique<cg_buffers<T>>();
  const auto n = static_cast<std::size_t>(unknowns);
  buffers->n = static_cast<int>(unknowns);
  KSYNC_CUDA_CHECK(cudaGetDevice(&buffers->device));
  int per_multiprocessor = 0;
  KSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&per_multiprocessor, cudaDevAttrMaxBlocksPerMultiprocessor, buffers->device));
  buffers->partial_slots = 2 * static_cast<unsigned int>(per_multiprocessor * multiprocessor_count(buffers->device));
  buffers->r = device_buffer<T>(n, where);
  buffers->p0 = device_buffer<T>(n, where);
  buffers->p1 = device_buffer<T>(n, where);
  buffers->ap = device_buffer<T>(n, where);
  buffers->partials = device_buffer<T>(buffers->partial_slots, where);
  buffers->state = device_buffer<cg_scalars<T>>(1, where);
  buffers->ticket = device_buffer<unsigned int>(1, where);
  buffers->barrier = device_buffer<spin_barrier_state>(1, where);
  // The ticket starts at 0 and every sum leaves it there. cudaMemset runs on the legacy stream: wait for it
  // here, once, so that no solve on any stream can overtake it.
  KSYNC_CUDA_CHECK(cudaMemset(buffers->ticket.data(), 0, sizeof(unsigned int)));
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  buffers->previous_solve_done.emplace(cudaEventDisableTiming);
  return buffers;
}

// Records cg_buffers::previous_solve_done behind everything a solve enqueued, when it returns or throws.
struct record_when_leaving {
  record_when_leaving(const event& done_event, cudaStream_t on) : done(done_event), stream(on) {}
  const event& done;
  cudaStream_t stream;
  record_when_leaving(const record_when_leaving&) = delete;
  record_when_leaving& operator=(const record_when_leaving&) = delete;
  ~record_when_leaving() { (void)cudaEventRecord(done.get(), stream); }
};

// The solver's kernels read b and write x as device memory of the solver's device (managed memory too).
inline void check_device_memory(const char* name, const void* pointer, int device) {
  check_device_memory(where, name, pointer, device, "the solver reads b and writes x");
}

}  // namespace detail

template <class T>
cg_solver<T>::cg_solver(std::int64_t m) : m_(m) {
  detail::check_extent(m);  // before m * m, which could overflow
  n_ = m * m;
  buffers_ = detail::make_buffers<T>(n_);
}

template <class T>
template <class Index, class Offset>
cg_solver<T>::cg_solver(const csr_matrix<T, Index, Offset>& a) : n_(a.rows()) {
  detail::check_matrix_extent(a);
  buffers_ = detail::make_buffers<T>(n_);
}

template <class T>
cg_solver<T>::cg_solver(cg_solver&&) noexcept = default;
template <class T>
cg_solver<T>& cg_solver<T>::operator=(cg_solver&&) noexcept = default;
template <class T>
cg_solver<T>::~cg_solver() = default;

template <class T>
cg_result cg_solver<T>::solve(cudaStream_t stream, const T* b, T* x, cg_form form, const cg_options& options,
                              const cg_tuning& tuning) {
  detail::check_argument(buffers_ == nullptr || m_ >= 1, detail::where, "this solver was made for a matrix of ", n_,
                         " rows: pass the matrix (solve(stream, a, b, x, ...))");
  return solve_with(stream, detail::cg_kernels::poisson_rows{static_cast<int>(m_)}, b, x, form, options, tuning);
}

template <class T>
template <class Index, class Offset>
cg_result cg_solver<T>::solve(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, const T* b, T* x,
                              cg_form form, const cg_options& options, const cg_tuning& tuning) {
  detail::check_matrix_extent(a);
  detail::check_argument(a.rows() == n_, detail::where, "a.rows() = ", a.rows(), " but the solver was made for ", n_,
                         " unknowns");
  return solve_with(stream, a, b, x, form, options, tuning);
}

template <class T>
template <class Operator>
cg_result cg_solver<T>::solve_with(cudaStream_t stream, const Operator& op, const T* b, T* x, cg_form form,
                                   const cg_options& options, const cg_tuning& tuning) {
  using detail::check_argument;
  using detail::where;
  check_argument(buffers_ != nullptr, where, "the solver was moved from");
  check_argument(b != nullptr, where, "b is null");
  check_argument(x != nullptr, where, "x is null");
  const auto unknowns = static_cast<std::size_t>(n_);
  ksync::detail::check_cg_apart(where, b, unknowns, x, unknowns);
  detail::check_device_memory("b", b, buffers_->device);
  detail::check_device_memory("x", x, buffers_->device);
  ksync::detail::check_cg_options(where, options);
  check_argument(is_known(form), where, "form = ", static_cast<int>(form), " is not a cg_form");
  check_argument(runs_in(form, strategy_half::native), where, "form = ", to_string(form),
                 " is portable (Kokkos); ksync::cuda runs ", names_of_half<cg_form>{strategy_half::native});
  ksync::detail::check_cg_recurrence(where, form, options);
  check_argument(tuning.elements_per_thread >= 1, where, "tuning.elements_per_thread = ", tuning.elements_per_thread,
                 " must be at least 1");
  check_argument(tuning.blocks_per_multiprocessor >= 0, where,
                 "tuning.blocks_per_multiprocessor = ", tuning.blocks_per_multiprocessor, " is negative");
  if (tuning.cluster_blocks != 0)
    detail::check_one_of(where, "tuning.cluster_blocks", tuning.cluster_blocks, cluster_sizes);
  check_argument(ksync::detail::named_in(cg_cluster_vectors_names, tuning.cluster_vectors), where,
                 "tuning.cluster_vectors = ", static_cast<int>(tuning.cluster_vectors),
                 " is not a cg_cluster_vectors (", ksync::detail::listed(cg_cluster_vectors_names), ")");
  const int device = stream_device(stream);
  check_argument(device == buffers_->device, where, "the stream belongs to device ", device,
                 " but the solver's buffers to device ", buffers_->device);
  const std::int64_t n = n_;
  const std::int64_t per_block = static_cast<std::int64_t>(detail::cg_kernels::block_size) * tuning.elements_per_thread;
  const auto blocks = static_cast<unsigned int>(
      std::clamp<std::int64_t>((n + per_block - 1) / per_block, 1, buffers_->partial_slots / 2));
  if (options.record_history && buffers_->history.size() < static_cast<std::size_t>(options.max_iterations) + 1) {
    buffers_->history = device_buffer<double>(static_cast<std::size_t>(options.max_iterations) + 1, where);
    // NaN (all bits set) until a solve writes an entry: an entry that a stale kernel failed to write then
    // shows as NaN, not as whatever the memory held (perhaps another solve's equal history).
    KSYNC_CUDA_CHECK(
        cudaMemsetAsync(buffers_->history.data(), 0xFF, buffers_->history.size() * sizeof(double), stream));
  }
  const bool jacobi = options.preconditioner == cg_preconditioner::jacobi;
  if (jacobi && buffers_->inverse_diagonal.size() != static_cast<std::size_t>(n_))
    buffers_->inverse_diagonal = device_buffer<T>(static_cast<std::size_t>(n_), where);
  if (options.recurrence == cg_recurrence::pipelined) buffers_->make_pipelined(where);
  std::vector<double> host_history;
  const detail::cg_run<T, Operator> run{.stream = stream,
                                        .op = op,
                                        .b = b,
                                        .x = x,
                                        .options = options,
                                        .tuning = tuning,
                                        .buffers = buffers_.get(),
                                        .blocks = blocks,
                                        .history = options.record_history ? buffers_->history.data() : nullptr,
                                        .inverse_diagonal = jacobi ? buffers_->inverse_diagonal.data() : nullptr,
                                        .host_history = &host_history};
  // This stream waits for the batches the previous solve left queued, on whatever stream it ran (a no-op
  // before the first solve): they must see that solve's state, not this one's.
  const event& previous = *buffers_->previous_solve_done;
  previous.make_wait(stream);
  const detail::record_when_leaving mark{previous, stream};
  const auto [state, restarts] =
      ksync::detail::cg_run_form_confirmed<T, detail::native_cg_forms>(where, form, options, run);
  cg_result result = detail::finish(run, state);
  result.restarts = restarts;
  return result;
}

namespace detail {

// The solver ksync::cuda::cg keeps per thread, per value type and per kind of operator (Kind: the built-in
// one, or csr_matrix) for the last (extent, device): made anew when either changes, the old buffers first.
template <class T, class Kind, class Make>
cg_solver<T>& kept_solver(std::int64_t extent, int device, Make&& make) {
  thread_local std::unique_ptr<cg_solver<T>> solver;
  thread_local std::tuple<std::int64_t, int> key{-1, -1};
  if (!solver || key != std::make_tuple(extent, device)) {
    solver.reset();
    solver = std::make_unique<cg_solver<T>>(make());
    key = {extent, device};
  }
  return *solver;
}

}  // namespace detail

}  // namespace ksync::cuda
