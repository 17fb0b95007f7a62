// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The kernels of ksync::cuda::cg (device/cg.hpp), private to cg.cu. Every kernel past the start reads the
// shared state (cg_scalars, device memory) first and returns at once when `done` is set: work enqueued past
// convergence leaves every vector as it was. The 2-D Poisson rows come from ksync/stencil.hpp, so the
// portable twin computes the same products.
//
// The fused step pair (two kernels per iteration; the persistent kernels run the same two phases):
//   direction_apply  p_new = r + beta p_old and Ap = A p_new in one pass (A p_new formed from r and p_old,
//                    so p_new's neighbours need not be written first), with p_new . Ap;
//   update_residual  x += alpha p_new, r -= alpha Ap, with r . r, then the scalar step (cg_advance,
//                    ksync/cg_types.hpp).
// p alternates between two buffers by iteration parity, since direction_apply reads p_old's neighbours
// while it writes p_new.
#pragma once

#include <ksync/cg_types.hpp>
#include <ksync/cuda/detail/operators.cuh>
#include <ksync/cuda/device/grid.cuh>
#include <ksync/cuda/device/reduce/kernel.cuh>  // fold_partials
#include <ksync/cuda/device/spin_barrier.cuh>
#include <ksync/stencil.hpp>

#include <cooperative_groups.h>

#include <cmath>
#include <cstdint>

namespace ksync::cuda::detail::cg_kernels {

using ksync::detail::cg_scalars;

inline constexpr int block_size = 256;

// The block's sum of `value`, returned to every thread. Every thread of the block calls.
template <class T>
__device__ T block_sum(T value) {
  __shared__ T scratch[block_size / 32];
  __shared__ T total;
  // Participation: the whole block. Data: scratch and total. Ends every read of the previous call's scratch
  // and total before this call writes them.
  __syncthreads();
  value = block::reduce_shuffle<block_size>(value, scratch, plus{});
  if (threadIdx.x == 0) total = value;
  // Participation: the whole block. Data: total, written by thread 0. Publishes the block's sum.
  __syncthreads();
  return total;
}

// The sum of partials[0, count), written by other blocks, returned to every thread of the block.
template <class T>
__device__ T partials_sum(const T* partials, unsigned int count) {
  __shared__ T scratch[block_size / 32];
  __shared__ T total;
  // Participation: the whole block. Data: scratch and total (see block_sum).
  __syncthreads();
  const T value = fold_partials<block_size>(partials, count, scratch, plus{});
  if (threadIdx.x == 0) total = value;
  // Participation: the whole block. Data: total. Publishes the grand total.
  __syncthreads();
  return total;
}

// The last block to finish (seed 001's ticket) gets the sum of every block's `block_value` in `total` and
// true; the others get false. Every thread of every block calls; block_value is the same in all threads.
template <class T>
__device__ bool last_block_sum(T block_value, T* partials, unsigned int* ticket, T& total) {
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_value;
    __threadfence();  // the partial is visible device-wide before the ticket that announces it
    is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  // Participation: the whole block. Data: is_last, written by thread 0. Publishes whether this block
  // finishes the sum.
  __syncthreads();
  if (!is_last) return false;  // block-uniform
  __threadfence();             // order the partials' reads after the last ticket
  total = partials_sum(partials, gridDim.x);
  if (threadIdx.x == 0) *ticket = 0;  // ready for the next sum
  return true;
}

// --- start (every form) ---

// r = b - A x, and p = 0 so that the first direction is r whatever beta holds. Data bound: n = m * m.
template <class T>
__global__ void residual_kernel(const T* b, const T* x, T* r, T* p, int m) {
  const int n = m * m;
  for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride())) {
    r[i] = b[i] - poisson_2d_apply<T>(array_entries<T>{x}, m, i);
    p[i] = 0;
  }
}

// After r . r (s.rho) and b . b (s.rho_next) landed: the residual scale and the first test.
template <class T>
__global__ void start_kernel(cg_scalars<T>* state, double tolerance, double* history) {
  cg_scalars<T> s = *state;
  ksync::detail::cg_start(s, tolerance, history);
  *state = s;
}

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

template <class T>
__global__ void apply_kernel(const cg_scalars<T>* state, const T* p, T* ap, int m) {
  if (state->done != 0) return;
  const int n = m * m;
  for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride()))
    ap[i] = poisson_2d_apply<T>(array_entries<T>{p}, m, i);
}

// x += alpha p, r -= alpha Ap.
template <class T>
__global__ void update_kernel(const cg_scalars<T>* state, scalar_source<T> alpha, const T* p, const T* ap, T* x, T* r,
                              int n) {
  if (state->done != 0) return;
  const T a = alpha.get();
  for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride())) {
    x[i] += a * p[i];
    r[i] -= a * ap[i];
  }
}

// p = r + beta p.
template <class T>
__global__ void direction_kernel(const cg_scalars<T>* state, scalar_source<T> beta, const T* r, T* p, int n) {
  if (state->done != 0) return;
  const T bt = beta.get();
  for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride()))
    p[i] = r[i] + bt * p[i];
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
  T* p[2];  // p[iteration % 2] is the current direction before direction_apply, the other one after
  T* ap;
  int m;
};

// Phase A of iteration s.iteration: this thread's share of p_new . Ap. Data bound: n = m * m.
template <class T>
__device__ T direction_apply_phase(const cg_vectors<T>& v, const cg_scalars<T>& s) {
  const T* p_old = v.p[s.iteration % 2];
  T* p_new = v.p[(s.iteration + 1) % 2];
  const direction_entries<T> next{v.r, p_old, s.beta};
  const int n = v.m * v.m;
  T sum = 0;
  for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride())) {
    const T p_i = next(i);
    const T ap_i = poisson_2d_apply<T>(next, v.m, i);
    p_new[i] = p_i;
    v.ap[i] = ap_i;
    sum += p_i * ap_i;
  }
  return sum;
}

// Phase B: x += alpha p_new, r -= alpha Ap (alpha = rho / p.Ap); this thread's share of the new r . r.
template <class T>
__device__ T update_residual_phase(const cg_vectors<T>& v, const cg_scalars<T>& s) {
  const T* p_new = v.p[(s.iteration + 1) % 2];
  const T alpha = s.rho / s.p_ap;
  const int n = v.m * v.m;
  T sum = 0;
  for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride())) {
    v.x[i] += alpha * p_new[i];
    const T r_i = v.r[i] - alpha * v.ap[i];
    v.r[i] = r_i;
    sum += r_i * r_i;
  }
  return sum;
}

template <class T>
__global__ void __launch_bounds__(block_size)
    direction_apply_kernel(cg_scalars<T>* state, cg_vectors<T> v, T* partials, unsigned int* ticket) {
  const cg_scalars<T> s = *state;  // every block reads it before the last one (below) writes p_ap
  if (s.done != 0) return;
  T total;
  if (last_block_sum(block_sum(direction_apply_phase(v, s)), partials, ticket, total) && threadIdx.x == 0)
    state->p_ap = total;
}

template <class T>
__global__ void __launch_bounds__(block_size)
    update_residual_kernel(cg_scalars<T>* state, cg_vectors<T> v, T* partials, unsigned int* ticket, double tolerance,
                           int max_iterations, double* history) {
  cg_scalars<T> s = *state;  // read by every block before the last one advances it
  if (s.done != 0) return;
  T total;
  if (last_block_sum(block_sum(update_residual_phase(v, s)), partials, ticket, total) && threadIdx.x == 0) {
    s.rho_next = total;
    ksync::detail::cg_advance(s, tolerance, max_iterations, history);
    *state = s;
  }
}

// --- the persistent kernels: the whole solve, a grid barrier between the phases ---

struct grid_sync_barrier {
  __device__ bool arrive_and_wait() const {
    cooperative_groups::this_grid().sync();
    return true;
  }
};

struct spin_barrier {
  spin_barrier_state* state;
  std::uint64_t timeout_ns;
  __device__ bool arrive_and_wait() const { return spin_barrier_sync(state, timeout_ns); }
};

// partials: 2 * gridDim.x slots, phase A's then phase B's. Every block keeps its own copy of the scalars;
// all copies stay equal, since every block sums the same partials in the same order.
template <class T, class Barrier>
__global__ void __launch_bounds__(block_size)
    persistent_kernel(Barrier barrier, cg_scalars<T>* state, cg_vectors<T> v, T* partials, double tolerance,
                      int max_iterations, double* history) {
  cg_scalars<T> s = *state;
  T* partials_a = partials;
  T* partials_b = partials + gridDim.x;
  while (s.done == 0) {  // uniform over the grid: every block holds the same s
    const T p_ap = block_sum(direction_apply_phase(v, s));
    if (threadIdx.x == 0) partials_a[blockIdx.x] = p_ap;
    // Participation: every thread of every block (the loop condition is grid-uniform; the grid was checked
    // co-resident). Data: partials_a[0, gridDim.x) (phase B reads only its own indices of p_new and Ap).
    // Publishes every block's share of p.Ap, from which each block forms alpha.
    if (!barrier.arrive_and_wait()) return;
    s.p_ap = partials_sum(partials_a, gridDim.x);
    const T rho_next = block_sum(update_residual_phase(v, s));
    if (threadIdx.x == 0) partials_b[blockIdx.x] = rho_next;
    // Participation: every thread of every block (as above). Data: r and p_new for [0, n), partials_b.
    // Publishes the new residual and direction, whose neighbours the next phase A reads, and every block's
    // share of r.r; it also ends every block's reads of partials_a before the next phase A rewrites them.
    if (!barrier.arrive_and_wait()) return;
    s.rho_next = partials_sum(partials_b, gridDim.x);
    // Every thread takes the step on its own copy; one records the history.
    ksync::detail::cg_advance(s, tolerance, max_iterations, blockIdx.x == 0 && threadIdx.x == 0 ? history : nullptr);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) *state = s;
}

}  // namespace ksync::cuda::detail::cg_kernels
