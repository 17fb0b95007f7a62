// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The kernels of the pipelined recurrence (cg_recurrence::pipelined; the rows are the shared
// ksync/cg_pipelined.hpp, which the portable twin runs too), private to the native half:
//   pipelined_start_kernel       w = A M^-1 r into the first iteration's w, z = s = p = 0, and w . M^-1 r;
//   pipelined_pass_kernel        one iteration: every update and both sums, then the scalar step (the last
//                                block to finish takes it): one kernel an iteration (fused, cuda_graph);
//   persistent_pipelined_kernel  the whole solve, one grid barrier an iteration (the persistent forms).
#pragma once

#include <ksync/cg_pipelined.hpp>
#include <ksync/cuda/detail/cg/kernels.cuh>

namespace ksync::cuda::detail::cg_kernels {

using ksync::detail::cg_pipelined_vectors;
using ksync::detail::cg_sum_pair;

// Data bound: n rows. Its sum finishes as the fused steps' do (finish_last_block), into state->delta.
template <class T, class Operator>
__global__ void __launch_bounds__(block_size)
    pipelined_start_kernel(cg_scalars<T>* state, Operator op, cg_pipelined_vectors<T> v, int n, int first_iteration,
                           T* partials, unsigned int* ticket) {
  __shared__ block::shuffle_storage<T, block_size> scratch;
  T* const w = v.w.current(first_iteration);
  const T sum = ksync::detail::with_preconditioning(v.inverse_diagonal, [&](auto weighted) {
    T terms = 0;
    for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride()))
      terms += ksync::detail::cg_pipelined_start_row<decltype(weighted)::value>(op, v, w, i);
    return terms;
  });
  // Participation: every thread of the block reaches the barriers inside reduce_shuffle and finish_last_block
  // (the loop above is the only data-bound code).
  const T block_value = block::reduce_shuffle<block_size>(sum, scratch, plus{});
  finish_last_block<block_size>(block_value, blockIdx.x, gridDim.x, partials, ticket, &state->delta, scratch, plus{});
}

// This thread's share of an iteration's pass (alpha = rho / p.Ap and beta from s). Data bound: n rows.
template <class T, class Operator>
__device__ cg_sum_pair<T> pipelined_phase(const Operator& op, const cg_pipelined_vectors<T>& v, int n,
                                          const cg_scalars<T>& s) {
  const T* const w_old = v.w.current(s.iteration);
  T* const w_new = v.w.next(s.iteration);
  const T alpha = s.rho / s.p_ap;
  const T beta = s.beta;
  return ksync::detail::with_preconditioning(v.inverse_diagonal, [&](auto weighted) {
    cg_sum_pair<T> sum{};
    for (int i = static_cast<int>(grid_stride_begin()); i < n; i += static_cast<int>(grid_stride()))
      sum += ksync::detail::cg_pipelined_row<decltype(weighted)::value>(op, v, w_old, w_new, alpha, beta, i);
    return sum;
  });
}

// The last-block finish of a pair of sums: each block publishes its two shares in partials[block] and
// partials[gridDim.x + block] and takes one ticket; the block that takes the last one folds both sets
// (thread 0 gets the totals) and resets the ticket. Returns, in every thread, whether this block was last.
template <class T>
__device__ bool finish_pair_last_block(cg_sum_pair<T> block_sums, T* partials, unsigned int* ticket,
                                       cg_sum_pair<T>& totals, block::shuffle_storage<T, block_size>& scratch_rho,
                                       block::shuffle_storage<T, block_size>& scratch_delta) {
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_sums.rho;
    partials[gridDim.x + blockIdx.x] = block_sums.delta;
    __threadfence();  // both shares are visible device-wide before the ticket that announces them
    is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  // Participation: every thread of the block (the call is block-uniform). Data: is_last, written by thread 0.
  // Publishes whether this block finishes the sums; it also ends warp 0's reads of the scratches.
  __syncthreads();
  if (is_last) {      // block-uniform
    __threadfence();  // every other block fenced its shares before its ticket; order our reads after ours
    totals.rho = fold_partials<block_size>(partials, gridDim.x, scratch_rho, plus{});
    totals.delta = fold_partials<block_size>(partials + gridDim.x, gridDim.x, scratch_delta, plus{});
    if (threadIdx.x == 0) *ticket = 0;  // the next sum on this solver starts from zero
  }
  return is_last;
}

// One iteration, then the scalar step in the last block (cg_advance_pipelined).
template <class T, class Operator>
__global__ void __launch_bounds__(block_size)
    pipelined_pass_kernel(cg_scalars<T>* state, Operator op, cg_pipelined_vectors<T> v, int n, T* partials,
                          unsigned int* ticket, double tolerance, int max_iterations, double* history) {
  __shared__ block::shuffle_storage<T, block_size> scratch_rho;
  __shared__ block::shuffle_storage<T, block_size> scratch_delta;
  cg_scalars<T> s = *state;  // read by every block before the last one advances it
  if (s.done != 0) return;   // grid-uniform: every block read the same state
  const cg_sum_pair<T> sums = pipelined_phase(op, v, n, s);
  // Participation: every thread of the block reaches the barriers inside both reduce_shuffle calls and the
  // finish; each sum has its own scratch, so the two need no barrier between them.
  const cg_sum_pair<T> block_sums{.rho = block::reduce_shuffle<block_size>(sums.rho, scratch_rho, plus{}),
                                  .delta = block::reduce_shuffle<block_size>(sums.delta, scratch_delta, plus{})};
  cg_sum_pair<T> totals{};
  if (finish_pair_last_block(block_sums, partials, ticket, totals, scratch_rho, scratch_delta) && threadIdx.x == 0) {
    s.rho_next = totals.rho;
    s.delta = totals.delta;
    ksync::detail::cg_advance_pipelined(s, tolerance, max_iterations, history);
    *state = s;
  }
}

// The whole solve, one grid barrier an iteration. partials: 4 * gridDim.x slots, two sets (r.r's shares, then
// w.r's) per iteration parity: a block may write iteration k + 1's shares while a slower one still reads
// iteration k's totals, never iteration k + 2's (that needs the barrier of k + 1, which the slow block has
// not passed). Every block keeps its own copy of the scalars; all stay equal, every block summing the same
// partials in the same order. Each sum has its own shared scratch and total: their reads end before the
// next grid barrier (grid_total's own __syncthreads, or the shuffles alone on small grids).
template <class T, class Operator, class Barrier>
__global__ void __launch_bounds__(block_size)
    persistent_pipelined_kernel(Barrier barrier, cg_scalars<T>* state, Operator op, cg_pipelined_vectors<T> v, int n,
                                T* partials, double tolerance, int max_iterations, double* history) {
  __shared__ block::shuffle_storage<T, block_size> scratch_rho;
  __shared__ block::shuffle_storage<T, block_size> scratch_delta;
  __shared__ T total_rho;
  __shared__ T total_delta;
  cg_scalars<T> s = *state;
  while (s.done == 0) {  // uniform over the grid: every thread holds the same s
    T* const shares = partials + (s.iteration % 2) * 2 * gridDim.x;
    const cg_sum_pair<T> sums = pipelined_phase(op, v, n, s);
    const T rho_share = block::reduce_shuffle<block_size>(sums.rho, scratch_rho, plus{});
    const T delta_share = block::reduce_shuffle<block_size>(sums.delta, scratch_delta, plus{});
    if (threadIdx.x == 0) {
      shares[blockIdx.x] = rho_share;
      shares[gridDim.x + blockIdx.x] = delta_share;
    }
    // Participation: every thread of every block (the loop condition is grid-uniform; the grid was checked
    // co-resident, or is one cluster, whose blocks run at once). Data: the next w for [0, n), whose neighbours the next
    // pass reads (the other vectors are read at their own rows only), and this parity's 2 * gridDim.x shares. Publishes
    // both, and ends every block's reads of the other parity's shares and of the current w before anyone rewrites them.
    if (!barrier.arrive_and_wait()) return;
    s.rho_next = grid_total(shares, gridDim.x, scratch_rho, total_rho);
    s.delta = grid_total(shares + gridDim.x, gridDim.x, scratch_delta, total_delta);
    // Every thread takes the step on its own copy; one records the history.
    ksync::detail::cg_advance_pipelined(s, tolerance, max_iterations,
                                        blockIdx.x == 0 && threadIdx.x == 0 ? history : nullptr);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) *state = s;
}

}  // namespace ksync::cuda::detail::cg_kernels
