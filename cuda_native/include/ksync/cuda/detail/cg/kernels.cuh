// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The kernels of ksync::cuda::cg (device/cg.hpp), private to the native half (src/device/cg.cu). Every
// kernel past the start reads the shared state (cg_scalars, device memory) first and returns at once when
// `done` is set: work enqueued past convergence leaves every vector as it was. The operator is a template
// argument: the built-in 2-D Poisson rows (poisson_rows, from ksync/stencil.hpp) or a CSR matrix
// (ksync::cuda::csr_matrix, rows from ksync/csr.hpp), so the portable twin computes the same products.
//
// The fused step pair (two kernels per iteration; the persistent kernels run the same two phases):
//   direction_apply  p_new = r + beta p_old and Ap = A p_new in one pass (A p_new formed from r and p_old,
//                    so p_new's neighbours need not be written first), with p_new . Ap;
//   update_residual  x += alpha p_new, r -= alpha Ap, with r . r, then the scalar step (cg_advance,
//                    ksync/cg_types.hpp).
// p alternates between two buffers by iteration parity, since direction_apply reads p_old's neighbours
// while it writes p_new.
#pragma once

#include <ksync/cg_classic.hpp>
#include <ksync/cg_types.hpp>
#include <ksync/cuda/block/reduce.cuh>
#include <ksync/cuda/grid/last_block.cuh>  // finish_last_block, fold_partials
#include <ksync/cuda/grid/stride.cuh>
#include <ksync/cuda/grid/total.cuh>
#include <ksync/detail/alternating_pair.hpp>
#include <ksync/ops.hpp>
#include <ksync/stencil.hpp>

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace ksync::cuda::detail::cg_kernels {

using ksync::detail::cg_scalars;

inline constexpr int block_size = 256;

// The built-in operator: row i of the 2-D Poisson operator on m x m unknowns. An operator is op(v, i), row i
// of A v for any v callable as v(j), and op.rows() (ksync::cuda::csr_matrix has the same shape).
struct poisson_rows {
  int m;
  [[nodiscard]] __host__ __device__ std::int64_t rows() const { return static_cast<std::int64_t>(m) * m; }
  template <class Vector>
  __device__ auto operator()(const Vector& v, int i) const {
    using T = decltype(v(i));
    return poisson_2d_apply<T>(v, m, i);
  }
  [[nodiscard]] __host__ __device__ double diagonal(std::int64_t /*i*/) const { return 4.0; }
  friend bool operator==(const poisson_rows&, const poisson_rows&) = default;
};

// --- start (every form) ---

// r = b - A x, and p = 0 so that the first direction is r whatever beta holds. Data bound: n rows.
template <class T, class Operator>
__global__ void residual_kernel(Operator op, const T* b, const T* x, T* r, T* p, int n) {
  for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride())) {
    r[i] = b[i] - static_cast<T>(op(array_entries<T>{x}, i));
    p[i] = 0;
  }
}

// After r . r (s.rho) and b . b (s.rho_next) landed (preconditioned: in the M^-1 norm, with the sum of M^-1's
// entries; pipelined: with w . r in s.delta): the residual scale and the first test.
template <class T>
__global__ void start_kernel(cg_scalars<T>* state, ksync::detail::cg_start_step step, double* history) {
  cg_scalars<T> s = *state;
  ksync::detail::cg_start(s, step, history);
  *state = s;
}

// --- Jacobi preconditioning (cg_options::preconditioner) ---

// M^-1 = 1 / diag(A), NaN where an entry is unusable (jacobi_inverse, ksync/stencil.hpp). Data bound: n rows.
template <class T, class Operator>
__global__ void inverse_diagonal_kernel(Operator op, T* inverse, int n) {
  for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride()))
    inverse[i] = jacobi_inverse(static_cast<T>(op.diagonal(i)));
}

// The terms of v . M^-1 v (weight: M^-1's entries), and of the diagonal's check (cg_refusal), for
// ksync::cuda::parallel_reduce.
template <class T>
struct weighted_square {
  const T* v;
  const T* weight;
  __device__ void operator()(std::int64_t i, T& sum) const { sum += v[i] * v[i] * weight[i]; }
};
template <class T>
struct unusable_entries {
  const T* v;
  __device__ void operator()(std::int64_t i, T& sum) const { sum += v[i] - v[i]; }  // 0, or NaN for NaN and Inf
};

// --- the unfused steps (host_scalars, device_scalars): one pass per vector operation ---

// Where a step's scalar comes from: the device state (device_scalars) or the launch (host_scalars).
template <class T>
struct scalar_source {
  const T* numerator;    // null: `value`
  const T* denominator;  // null: *numerator; otherwise *numerator / *denominator
  T value;
  __device__ T get() const {
    if (numerator == nullptr) return value;
    return denominator == nullptr ? *numerator : *numerator / *denominator;
  }
};

template <class T, class Operator>
__global__ void apply_kernel(const cg_scalars<T>* state, Operator op, const T* p, T* ap, int n) {
  if (state->done != 0) return;
  for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride()))
    ap[i] = static_cast<T>(op(array_entries<T>{p}, i));
}

// x += alpha p, r -= alpha Ap (ksync/cg_classic.hpp; r . r is summed by another kernel).
template <class T>
__global__ void update_kernel(const cg_scalars<T>* state, scalar_source<T> alpha, const T* p, const T* ap, T* x, T* r,
                              int n) {
  if (state->done != 0) return;
  const T a = alpha.get();
  for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride()))
    static_cast<void>(ksync::detail::cg_classic_update<false>(x, r, p, ap, static_cast<const T*>(nullptr), a, i));
}

// p = M^-1 r + beta p (inverse_diagonal: M^-1's entries; null without a preconditioner).
template <class T>
__global__ void direction_kernel(const cg_scalars<T>* state, scalar_source<T> beta, const T* r, T* p, int n,
                                 const T* inverse_diagonal) {
  if (state->done != 0) return;
  const direction_entries<T> next{r, p, beta.get(), inverse_diagonal};
  for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride()))
    p[i] = next(i);
}

template <class T>
__global__ void advance_kernel(cg_scalars<T>* state, double tolerance, int max_iterations, double* history) {
  cg_scalars<T> s = *state;
  if (s.done != 0) return;
  ksync::detail::cg_advance(s, tolerance, max_iterations, history);
  *state = s;
}

// --- the fused steps (fused, cuda_graph, and the phases of the persistent kernels) ---

template <class T>
struct cg_vectors {
  T* x;
  T* r;
  ksync::detail::alternating_pair<T> p;  // the direction: direction_apply reads current and writes next
  T* ap;
  int n;
  const T* inverse_diagonal;  // Jacobi's M^-1; null without a preconditioner
};

// Phase A of iteration s.iteration: this thread's share of p_new . Ap. Data bound: n rows.
template <class T, class Operator>
__device__ T direction_apply_phase(const Operator& op, const cg_vectors<T>& v, const cg_scalars<T>& s) {
  const T* p_old = v.p.current(s.iteration);
  T* p_new = v.p.next(s.iteration);
  const direction_entries<T> next{v.r, p_old, s.beta, v.inverse_diagonal};
  const int n = v.n;
  T sum = 0;
  for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride())) {
    const T p_i = next(i);
    const T ap_i = static_cast<T>(op(next, i));
    p_new[i] = p_i;
    v.ap[i] = ap_i;
    sum += p_i * ap_i;
  }
  return sum;
}

// Phase B: x += alpha p_new, r -= alpha Ap (alpha = rho / p.Ap); this thread's share of the new r . r
// (r . M^-1 r with a preconditioner).
template <class T>
__device__ T update_residual_phase(const cg_vectors<T>& v, const cg_scalars<T>& s) {
  const T* p_new = v.p.next(s.iteration);
  const T alpha = s.rho / s.p_ap;
  const int n = v.n;
  T sum = 0;
  const auto rows = [&](auto weighted) {
    for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride()))
      sum += ksync::detail::cg_classic_update<decltype(weighted)::value>(v.x, v.r, p_new, v.ap, v.inverse_diagonal,
                                                                         alpha, i);
  };
  if (v.inverse_diagonal == nullptr) {
    rows(std::false_type{});
  } else {
    rows(std::true_type{});
  }
  return sum;
}

// The fused steps' sums finish as the last-block (single-pass) reduction does (finish_last_block): each block
// publishes its share and takes a ticket; the block taking the last one forms the total and stores it.
template <class T, class Operator>
__global__ void __launch_bounds__(block_size)
    direction_apply_kernel(cg_scalars<T>* state, Operator op, cg_vectors<T> v, T* partials, unsigned int* ticket) {
  __shared__ block::shuffle_storage<T, block_size> scratch;
  const cg_scalars<T> s = *state;  // every block reads it before the last one (below) writes p_ap
  if (s.done != 0) return;         // grid-uniform: every block read the same state
  // Data bound: direction_apply_phase touches only indices below n. Participation: every thread of the
  // block reaches the barriers inside reduce_shuffle and finish_last_block.
  const T block_value = block::reduce_shuffle<block_size>(direction_apply_phase(op, v, s), scratch, plus{});
  finish_last_block<block_size>(block_value, blockIdx.x, gridDim.x, partials, ticket, &state->p_ap, scratch, plus{});
}

template <class T>
__global__ void __launch_bounds__(block_size)
    update_residual_kernel(cg_scalars<T>* state, cg_vectors<T> v, T* partials, unsigned int* ticket, double tolerance,
                           int max_iterations, double* history) {
  __shared__ block::shuffle_storage<T, block_size> scratch;
  cg_scalars<T> s = *state;  // read by every block before the last one advances it
  if (s.done != 0) return;   // grid-uniform, as above
  // Data bound and participation as in direction_apply_kernel.
  const T block_value = block::reduce_shuffle<block_size>(update_residual_phase(v, s), scratch, plus{});
  if (finish_last_block<block_size>(block_value, blockIdx.x, gridDim.x, partials, ticket, &state->rho_next, scratch,
                                    plus{}) &&
      threadIdx.x == 0) {
    s.rho_next = state->rho_next;  // written just above by this thread
    ksync::detail::cg_advance(s, tolerance, max_iterations, history);
    *state = s;
  }
}

// --- the persistent kernels: the whole solve, a grid barrier (a Barrier of grid/barrier.cuh) between the phases ---

// partials: 2 * gridDim.x slots, phase A's then phase B's. Every block keeps its own copy of the scalars;
// all copies stay equal, since every block sums the same partials in the same order. Each phase has its own
// shared scratch and total: the block sum (reduce_shuffle) is read by warp 0 before the grid barrier that
// follows it, and grid_total's reads end before the next grid barrier; each grid barrier is also a barrier
// of the whole block, so the phases need no block barrier of their own to reuse them.
//
// Two builds of one body (persistent.cuh picks one per solve): persistent_kernel leaves the registers to the
// compiler (the stencil in double: 64 a thread with the spin barrier, 80 with grid.sync, so four or three
// blocks a multiprocessor); persistent_kernel_held holds it to six blocks a multiprocessor (40 registers,
// 56-76 bytes of spill stores). Figures from ptxas -v, CUDA 13.0, sm_90. Two kernels, not one with the bound
// a template argument: __launch_bounds__(256, 1) is not the build __launch_bounds__(256) gives (ptxas took
// 96-104 registers there, two blocks a multiprocessor).
inline constexpr int held_blocks = 6;

template <class T, class Operator, class Barrier>
__device__ __forceinline__ void persistent_solve(Barrier barrier, cg_scalars<T>* state, Operator op, cg_vectors<T> v,
                                                 T* partials, double tolerance, int max_iterations, double* history) {
  __shared__ block::shuffle_storage<T, block_size> scratch_a;  // phase A's block sum, then its grid total
  __shared__ T total_a;
  __shared__ block::shuffle_storage<T, block_size> scratch_b;  // phase B's
  __shared__ T total_b;
  cg_scalars<T> s = *state;
  T* partials_a = partials;
  T* partials_b = partials + gridDim.x;
  while (s.done == 0) {  // uniform over the grid: every thread holds the same s
    const T p_ap = block::reduce_shuffle<block_size>(direction_apply_phase(op, v, s), scratch_a, plus{});
    if (threadIdx.x == 0) partials_a[blockIdx.x] = p_ap;
    // Participation: every thread of every block (the loop condition is grid-uniform; the grid was checked
    // co-resident, or is one cluster, whose blocks run at once). Data: partials_a[0, gridDim.x) (phase B reads only its
    // own indices of p_new and Ap). Publishes every block's share of p.Ap, from which each block forms alpha.
    if (!barrier.arrive_and_wait()) return;
    s.p_ap = grid_total(partials_a, gridDim.x, scratch_a, total_a);
    const T rho_next = block::reduce_shuffle<block_size>(update_residual_phase(v, s), scratch_b, plus{});
    if (threadIdx.x == 0) partials_b[blockIdx.x] = rho_next;
    // Participation: every thread of every block (as above). Data: r and p_new for [0, n), partials_b.
    // Publishes the new residual and direction, whose neighbours the next phase A reads, and every block's
    // share of r.r; it also ends every block's reads of partials_a before the next phase A rewrites them.
    if (!barrier.arrive_and_wait()) return;
    s.rho_next = grid_total(partials_b, gridDim.x, scratch_b, total_b);
    // Every thread takes the step on its own copy; one records the history.
    ksync::detail::cg_advance(s, tolerance, max_iterations, blockIdx.x == 0 && threadIdx.x == 0 ? history : nullptr);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) *state = s;
}

template <class T, class Operator, class Barrier>
__global__ void __launch_bounds__(block_size)
    persistent_kernel(Barrier barrier, cg_scalars<T>* state, Operator op, cg_vectors<T> v, T* partials,
                      double tolerance, int max_iterations, double* history) {
  persistent_solve(barrier, state, op, v, partials, tolerance, max_iterations, history);
}

template <class T, class Operator, class Barrier>
__global__ void __launch_bounds__(block_size, held_blocks)
    persistent_kernel_held(Barrier barrier, cg_scalars<T>* state, Operator op, cg_vectors<T> v, T* partials,
                           double tolerance, int max_iterations, double* history) {
  persistent_solve(barrier, state, op, v, partials, tolerance, max_iterations, history);
}

}  // namespace ksync::cuda::detail::cg_kernels
