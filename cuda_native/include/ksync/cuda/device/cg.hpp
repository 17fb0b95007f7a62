// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::cg — conjugate gradients on the 2-D Poisson operator (ksync/stencil.hpp: 5 points, zero
// boundary, m x m unknowns in row-major order) or on a square ksync::cuda::csr_matrix (ksync/cuda/csr_matrix.hpp),
// hand-written in CUDA, in every native form of ksync::cg_form (ksync/cg_types.hpp): host_scalars,
// device_scalars, fused, cuda_graph, persistent_grid_sync, persistent_spin_barrier, persistent_cluster (sm_90:
// the persistent kernel on one thread-block cluster, its vectors in the cluster's shared memory where they fit,
// for small systems). The portable twin is ksync::cg
// (src/ksync/cg.hpp), which reaches these forms on Kokkos::Cuda. docs/solvers.md measures each form and says
// where its time goes.
//
//   auto result = cg(stream, m, b, x, form[, options, tuning])   blocking: returns once CG stopped
//   auto result = cg(stream, a, b, x, form[, options, tuning])   the same on the CSR matrix a
//   cg_solver<T> solver(m); solver.solve(stream, b, x, form[, options, tuning])  the same, with the work
//                                                                vectors kept between solves
//   cg_solver<T> solver(a); solver.solve(stream, a, b, x, form[, options, tuning])  (a solver for a matrix
//                                                                takes any matrix of its extent)
//
// x holds the initial guess on entry and the solution on return (in `stream`'s order: read it on `stream`
// or after synchronizing it). b and x are device pointers of m * m values (of a.rows() for a matrix); T is
// float or double. A matrix must be square and symmetric positive definite (symmetry is not checked: CG on
// an unsymmetric matrix stops at max_iterations or on a residual it cannot trust). Every form walks the
// matrix's rows as it walks the stencil's points: one row per thread, grid-stride. options.preconditioner =
// jacobi runs PCG with M = diag(A) in every form; options.recurrence = pipelined runs pipelined CG (one
// reduction, one grid barrier an iteration) in every form but host_scalars and device_scalars, and
// options.check_true_residual confirms convergence on b - A x (ksync/cg_types.hpp). The scalars
// of the recurrence never leave the device except where the form says so: the host looks at them through
// mapped pinned memory (ksync/cuda/mailbox.hpp), never with cudaStreamSynchronize.
#pragma once

#include <ksync/cg_types.hpp>
#include <ksync/cuda/csr_matrix.hpp>
#include <ksync/strategy_rows.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>

namespace ksync::cuda {

// Where persistent_cluster keeps the solve's vectors (cg_tuning::cluster_vectors).
enum class cg_cluster_vectors {
  // shared_memory where it runs (blocks_per_multiprocessor = 0 and the vectors fit) and, for the classic
  // recurrence, a block of the cluster has more than one row a thread (below that global memory was faster for
  // it, not for the pipelined one: docs/solvers.md), global_memory otherwise
  automatic,
  // in the cluster's shared memory, a slab of rows a block, the other blocks' entries read through distributed
  // shared memory: the classic recurrence's r, both directions, Ap and x; the pipelined one's x, r, both w, z, s
  // and p; and Jacobi's M^-1. Refused for blocks_per_multiprocessor other than 0, and where a block's slabs need
  // more shared memory than the device gives a block (double, 16 blocks, an H100's 232,448 bytes: about 92,000
  // unknowns classic, 77,000 with Jacobi; about 66,000 pipelined, 58,000 with Jacobi).
  shared_memory,
  global_memory,  // in global memory, as the grid-wide persistent forms keep them
};
inline constexpr std::string_view cg_cluster_vectors_names[] = {"automatic", "shared_memory",
                                                                "global_memory"};  // in the enum's order

constexpr std::string_view to_string(cg_cluster_vectors placement) noexcept {
  return ksync::detail::name_in(cg_cluster_vectors_names, placement);
}

struct cg_tuning {
  int elements_per_thread = 4;  // the fewest unknowns one thread handles before another block is added
  // persistent forms: at most this many blocks per multiprocessor (0: all that fit); persistent_cluster, whose
  // grid is one cluster: refused where that many cannot be resident, and picks the kernel's build as for the others
  int blocks_per_multiprocessor = 0;
  std::uint64_t barrier_timeout_ns = 2'000'000'000;  // persistent_spin_barrier: give up (and throw) after 2 s
  // persistent_cluster: the blocks of its one cluster, 1, 2, 4, 8 or 16 (16 where the device takes the
  // non-portable size); 0: the largest the device takes, at most one block per 256 unknowns.
  int cluster_blocks = 0;
  cg_cluster_vectors cluster_vectors = cg_cluster_vectors::automatic;  // persistent_cluster (above)
};

namespace detail {
template <class T>
struct cg_buffers;
}  // namespace detail

template <class T>
class cg_solver {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "ksync::cuda::cg supports float and double");

 public:
  // Allocates the work vectors of an m x m problem on the current device. Throws std::invalid_argument for
  // m < 1 or m > 46295 (the kernels' 32-bit grid-stride indices), allocation_error (ksync/cuda/allocation.hpp)
  // naming the bytes when the device has no room, with nothing kept.
  explicit cg_solver(std::int64_t m);
  // Allocates the work vectors of a problem of a.rows() unknowns. Throws std::invalid_argument for a matrix
  // that is not square, has no rows, or more rows than the kernels' 32-bit grid-stride indices hold (2^31 -
  // 2^22 - 1); allocation_error as above.
  template <class Index, class Offset>
  explicit cg_solver(const csr_matrix<T, Index, Offset>& a);
  cg_solver(cg_solver&&) noexcept;
  cg_solver& operator=(cg_solver&&) noexcept;
  cg_solver(const cg_solver&) = delete;
  cg_solver& operator=(const cg_solver&) = delete;
  ~cg_solver();

  [[nodiscard]] std::int64_t m() const noexcept { return m_; }  // 0 for a solver made for a matrix
  [[nodiscard]] std::int64_t extent() const noexcept { return n_; }

  // Solves A x = b on `stream`. Throws std::invalid_argument before any work for null b or x, b and x that
  // overlap or are not device memory of the solver's device (managed memory is taken), bad options
  // (tolerance <= 0 or not finite, max_iterations < 1, check_every < 1), a form this half does not run
  // (kokkos_graph), tuning out of range, a persistent grid that cannot be co-resident, or persistent_cluster
  // where clusters cannot run (a device or build without sm_90), the cluster size is refused, or
  // cluster_vectors = shared_memory cannot keep the vectors there (above); and at the start,
  // x left as it was, for NaN or Inf in b or in the initial x (cg_refusal, ksync/cg_types.hpp). cuda_error
  // when a CUDA call fails or a spin barrier times out; allocation_error when a history buffer cannot be
  // had. A solve returns while batches past the converged one may still be queued on its stream: the next
  // solve, on any stream, is ordered behind them (an event), so one solver may serve several streams.
  cg_result solve(cudaStream_t stream, const T* b, T* x, cg_form form, const cg_options& options = {},
                  const cg_tuning& tuning = {});
  // The same on the CSR matrix a, which must have the solver's extent (a.rows() == extent(); the built-in
  // solve() above needs a solver made with m).
  template <class Index, class Offset>
  cg_result solve(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, const T* b, T* x, cg_form form,
                  const cg_options& options = {}, const cg_tuning& tuning = {});

 private:
  template <class Operator>
  cg_result solve_with(cudaStream_t stream, const Operator& op, const T* b, T* x, cg_form form,
                       const cg_options& options, const cg_tuning& tuning);

  std::int64_t m_ = 0;
  std::int64_t n_ = 0;
  std::unique_ptr<detail::cg_buffers<T>> buffers_;
};

// One solve with work vectors kept per thread for the last (m, type, device) used.
template <class T>
cg_result cg(cudaStream_t stream, std::int64_t m, const T* b, T* x, cg_form form, const cg_options& options = {},
             const cg_tuning& tuning = {});

// One solve on the CSR matrix a, with work vectors kept per thread for the last (extent, type, device) used.
template <class T, class Index, class Offset>
cg_result cg(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, const T* b, T* x, cg_form form,
             const cg_options& options = {}, const cg_tuning& tuning = {});

}  // namespace ksync::cuda
