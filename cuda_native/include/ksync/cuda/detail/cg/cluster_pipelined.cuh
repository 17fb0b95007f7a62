// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The persistent kernel of the pipelined recurrence (ksync/cg_pipelined.hpp) on one thread-block cluster (sm_90)
// with the solve's vectors in the cluster's shared memory: cluster_resident.cuh's placement with one cluster
// barrier an iteration instead of two. Block b keeps rows [b slab, (b + 1) slab) of x, r, both w buffers, z, s,
// p (and Jacobi's M^-1) in its own shared memory. Only w crosses blocks: a row of A M^-1 w reads its neighbours'
// entries of the current w, in other blocks through distributed shared memory; every other vector is read and
// written at its own rows. Row for row the arithmetic of persistent_pipelined_kernel (pipelined_kernels.cuh);
// only the order in which the partial sums are added differs. x and r go back to global memory once, when the
// solve stops (a restart on the true residual begins again from x).
#pragma once

#include <ksync/cg_pipelined.hpp>
#include <ksync/cg_types.hpp>
#include <ksync/cuda/block/reduce.cuh>
#include <ksync/cuda/detail/cg/cluster_resident.cuh>
#include <ksync/cuda/detail/cg/pipelined_kernels.cuh>
#include <ksync/cuda/grid/cluster.cuh>  // KSYNC_CLUSTER_CODE
#include <ksync/ops.hpp>

#include <cooperative_groups.h>

namespace ksync::cuda::detail::cg_kernels {

// Vectors a block of the pipelined resident kernel keeps in its shared memory: x, r, the two w buffers, z, s
// and p, and Jacobi's M^-1 when the solve is preconditioned.
[[nodiscard]] constexpr int pipelined_resident_vectors(bool weighted) {
  return weighted ? 8 : 7;
}

// M^-1 w(j) (w(j) itself without Jacobi) over the cluster's slabs: what A reads in the pipelined recurrence, as
// preconditioned_entries (ksync/cg_pipelined.hpp) reads it from arrays.
template <class T, bool Weighted>
struct cluster_preconditioned {
  cluster_slabs<T> w;
  cluster_slabs<T> inverse;  // read only when Weighted
  template <class Index>
  __device__ T operator()(Index j) const {
    return Weighted ? w(j) * inverse(j) : w(j);
  }
};

// The whole solve on one cluster (gridDim.x = the cluster's blocks), block_size threads a block, and
// pipelined_resident_vectors(Weighted) * slab entries of dynamic shared memory a block. The start (enqueue_start)
// has left r = b - A x, w = A M^-1 r in the current w, z = s = p = 0, M^-1 when Weighted, and the state's
// scalars.
template <class T, class Operator, bool Weighted>
__global__ void __launch_bounds__(block_size, 1)
    cluster_pipelined_kernel(cg_scalars<T>* state, Operator op, cg_pipelined_vectors<T> v, int n, int slab,
                             double tolerance, int max_iterations, double* history) {
#if !KSYNC_CLUSTER_CODE
  (void)state, (void)op, (void)v, (void)n, (void)slab, (void)tolerance, (void)max_iterations, (void)history;
  __trap();  // not reached: cluster_launch refuses kernels without sm_90 code
#else
  __shared__ block::shuffle_storage<T, block_size> scratch_rho;
  __shared__ block::shuffle_storage<T, block_size> scratch_delta;
  // This block's shares of r . M^-1 r and w . M^-1 r, by iteration parity: a block may write iteration k + 1's
  // while a slower one still reads iteration k's, never k + 2's (that needs the barrier of k + 1).
  __shared__ T share_rho[2];
  __shared__ T share_delta[2];
  extern __shared__ __align__(16) unsigned char resident_bytes[];
  cg_scalars<T> s = *state;
  if (s.done != 0) return;  // uniform over the cluster, and before any access to another block
  const auto cluster = cooperative_groups::this_cluster();
  const auto [blocks, rank, begin, count] = this_block_slab(n, slab);
  T* const base = reinterpret_cast<T*>(resident_bytes);
  // The block's slabs, at its own offsets: the kernel's rows run on them with local indices.
  const cg_pipelined_vectors<T> local{.x = base,
                                      .r = base + slab,
                                      .w = {.even = base + 2 * slab, .odd = base + 3 * slab},
                                      .z = base + 4 * slab,
                                      .s = base + 5 * slab,
                                      .p = base + 6 * slab,
                                      .inverse_diagonal = Weighted ? base + 7 * slab : nullptr};
  T* const inverse = base + 7 * slab;  // only when Weighted (the launch sized the memory for it)
  const int tid = static_cast<int>(threadIdx.x);
  const T* const w_start = v.w.current(s.iteration);
  T* const w_first = local.w.current(s.iteration);
  for (int l = tid; l < count; l += block_size) {
    const int i = begin + l;
    local.x[l] = v.x[i];
    local.r[l] = v.r[i];
    w_first[l] = w_start[i];
    local.z[l] = v.z[i];
    local.s[l] = v.s[i];
    local.p[l] = v.p[i];
    if constexpr (Weighted) inverse[l] = v.inverse_diagonal[i];
  }
  const auto slabs = [&](const T* own) { return cluster_slabs<T>{own, begin, count, slab}; };
  // Participation: every thread of every block of the cluster (no block has left: `done` is uniform). Data: each
  // block's entries [0, count) of every vector. Publishes the current w and M^-1 to the cluster, and makes sure
  // every block has started (its shared memory exists) before any block reads another's.
  cluster.sync();
  while (s.done == 0) {  // uniform over the cluster: every thread holds the same s
    const int parity = s.iteration % 2;
    const T* const w_old = local.w.current(s.iteration);
    T* const w_new = local.w.next(s.iteration);
    const cluster_preconditioned<T, Weighted> entries{slabs(w_old), slabs(inverse)};
    const T alpha = s.rho / s.p_ap;
    ksync::detail::cg_sum_pair<T> sum{};
    for (int l = tid; l < count; l += block_size) {  // data bound: this block's rows
      const T n_i = static_cast<T>(op(entries, begin + l));
      sum += ksync::detail::cg_pipelined_update<Weighted>(local, w_old, w_new, alpha, s.beta, n_i, l);
    }
    const T rho_share = block::reduce_shuffle<block_size>(sum.rho, scratch_rho, plus{});
    const T delta_share = block::reduce_shuffle<block_size>(sum.delta, scratch_delta, plus{});
    if (tid == 0) {
      share_rho[parity] = rho_share;
      share_delta[parity] = delta_share;
    }
    // Participation: every thread of every block (the loop condition is uniform). Data: each block's rows
    // [0, count) of the new w, which the next iteration reads across the cluster (the other vectors are read at
    // their own rows only), and this parity's shares of every block. Publishes both, and ends every block's reads
    // of the current w, which the next iteration rewrites, and of the other parity's shares.
    cluster.sync();
    s.rho_next = cluster_total(share_rho[parity], blocks);
    s.delta = cluster_total(share_delta[parity], blocks);
    // Every thread takes the step on its own copy; one records the history.
    ksync::detail::cg_advance_pipelined(s, tolerance, max_iterations, rank == 0 && tid == 0 ? history : nullptr);
  }
  for (int l = tid; l < count; l += block_size) {
    v.x[begin + l] = local.x[l];
    v.r[begin + l] = local.r[l];
  }
  if (rank == 0 && tid == 0) *state = s;
  // Participation: every thread of every block (every block left the loop after the same iteration). Data:
  // none new. Keeps each block's shared memory alive until every block has read its last shares.
  cluster.sync();
#endif
}

}  // namespace ksync::cuda::detail::cg_kernels
