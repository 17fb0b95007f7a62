// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The persistent kernel of the classic recurrence on one thread-block cluster (sm_90) with the solve's
// vectors in the cluster's shared memory: persistent_cluster's kernel where they fit (persistent_cluster.cuh,
// cg_tuning::cluster_vectors). Block b of the cluster keeps rows [b slab, (b + 1) slab) of r, both directions,
// Ap, x (and Jacobi's M^-1) in its own shared memory; an operator's row reads its neighbours' entries in other
// blocks through distributed shared memory (cluster.map_shared_rank), so the built-in stencil and any CSR
// matrix run here alike. Between the two cluster barriers of an iteration no entry leaves the multiprocessors:
// where the grid-wide forms wait on L2 after every barrier (the loads of the neighbours, the partial sums),
// this kernel waits on shared memory. Phase A forms a block's own entries of the new direction once, before a
// block barrier, and A p reads them there; another block's entries it forms where read (that block's are not
// published until the cluster barrier). x and r go back to global memory once, when the solve stops.
// The phases are those of persistent_solve (kernels.cuh), entry for entry the same arithmetic; only the
// order in which the partial sums are added differs (a block's rows are contiguous here).
#pragma once

#include <ksync/cg_classic.hpp>
#include <ksync/cg_types.hpp>
#include <ksync/cuda/block/reduce.cuh>
#include <ksync/cuda/detail/cg/kernels.cuh>
#include <ksync/cuda/grid/cluster.cuh>  // KSYNC_CLUSTER_CODE
#include <ksync/cuda/warp/reduce.cuh>
#include <ksync/ops.hpp>

#include <cooperative_groups.h>

#include <cstddef>

namespace ksync::cuda::detail::cg_kernels {

// Vectors a block of the resident kernel keeps in its shared memory: r, the two directions, Ap and x, and
// Jacobi's M^-1 when the solve is preconditioned.
[[nodiscard]] constexpr int resident_vectors(bool weighted) {
  return weighted ? 6 : 5;
}

// Entry j of a vector spread over the cluster's blocks in slabs: block b holds entries [b slab, b slab +
// count_b) at offset `local` of its own shared memory (the same offset in every block). Own entries are
// plain shared loads; another block's go through distributed shared memory.
template <class T>
struct cluster_slabs {
  const T* local;
  int begin;              // this block's first entry
  int count;              // this block's entries
  int slab;               // entries per block (the last blocks may hold fewer)
  template <class Index>  // int (the stencil) or a CSR matrix's column type; every entry is below 2^31
  __device__ T operator()(Index entry) const {
#if !KSYNC_CLUSTER_CODE
    (void)entry;
    __trap();  // not reached: cluster_launch refuses kernels without sm_90 code
    return local[0];
#else
    const auto j = static_cast<int>(entry);
    const int own = j - begin;
    if (static_cast<unsigned int>(own) < static_cast<unsigned int>(count)) return local[own];
    const int rank = j / slab;
    return cooperative_groups::this_cluster().map_shared_rank(const_cast<T*>(local), rank)[j - rank * slab];
#endif
  }
};

// p_new(j) = M^-1 r(j) + beta p_old(j), as direction_entries (ksync/stencil.hpp) forms it from arrays.
template <class T, bool Weighted>
struct cluster_direction {
  cluster_slabs<T> r;
  cluster_slabs<T> p;
  cluster_slabs<T> inverse;  // read only when Weighted
  T beta;
  template <class Index>
  __device__ T operator()(Index j) const {
    return (Weighted ? r(j) * inverse(j) : r(j)) + beta * p(j);
  }
};

// The new direction as A p reads it: this block's entries from p_new, which phase A formed once before a block
// barrier; another block's formed where read from its r and old direction (its p_new is not published until
// the cluster barrier after phase A), with the same arithmetic, so every block sees the same values.
template <class T, bool Weighted>
struct cluster_fresh_direction {
  const T* p_new;  // this block's entries, at its own offsets
  cluster_direction<T, Weighted> formed;
  template <class Index>
  __device__ T operator()(Index entry) const {
    const int own = static_cast<int>(entry) - formed.r.begin;
    if (static_cast<unsigned int>(own) < static_cast<unsigned int>(formed.r.count)) return p_new[own];
    return formed(entry);
  }
};

// The sum of every block's `slot` (a shared variable at the same address in each), in rank order: each warp
// forms it on its own, lane c reading block c's slot, and the butterfly leaves the same bits in every lane of
// every block. Called after the cluster barrier that publishes the slots.
template <class T>
__device__ T cluster_total(T& slot, unsigned int blocks) {
#if !KSYNC_CLUSTER_CODE
  (void)blocks;
  __trap();  // not reached, as above
  return slot;
#else
  const unsigned int lane = warp::lane_id();
  const T value =
      lane < blocks ? *cooperative_groups::this_cluster().map_shared_rank(&slot, static_cast<int>(lane)) : T(0);
  return warp::reduce_all(value, plus{});
#endif
}

// This block's place among the cluster's slabs of n entries, `slab` a block: the cluster's size, the block's rank,
// its first entry and how many it holds (the last blocks may hold fewer, or none). Both resident kernels start so.
struct cluster_slab_place {
  unsigned int blocks;
  int rank;
  int begin;
  int count;
};
__device__ inline cluster_slab_place this_block_slab(int n, int slab) {
#if !KSYNC_CLUSTER_CODE
  (void)n, (void)slab;
  __trap();  // not reached: cluster_launch refuses kernels without sm_90 code
  return {};
#else
  const auto cluster = cooperative_groups::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int begin = min(n, rank * slab);
  return {.blocks = cluster.num_blocks(), .rank = rank, .begin = begin, .count = min(n, begin + slab) - begin};
#endif
}

// The whole solve on one cluster (gridDim.x = the cluster's blocks), block_size threads a block, and
// resident_vectors(Weighted) * slab entries of dynamic shared memory a block. The start (enqueue_start) has
// left r = b - A x in v.r, the state's scalars, and M^-1 in v.inverse_diagonal when Weighted.
template <class T, class Operator, bool Weighted>
__global__ void __launch_bounds__(block_size, 1)
    cluster_resident_kernel(cg_scalars<T>* state, Operator op, cg_vectors<T> v, int slab, double tolerance,
                            int max_iterations, double* history) {
#if !KSYNC_CLUSTER_CODE
  (void)state, (void)op, (void)v, (void)slab, (void)tolerance, (void)max_iterations, (void)history;
  __trap();  // not reached: cluster_launch refuses kernels without sm_90 code
#else
  __shared__ block::shuffle_storage<T, block_size> scratch_a;  // phase A's block sum
  __shared__ block::shuffle_storage<T, block_size> scratch_b;  // phase B's
  __shared__ T share_a;                                        // this block's share of p . Ap
  __shared__ T share_b;                                        // of r . M^-1 r
  extern __shared__ __align__(16) unsigned char resident_bytes[];
  cg_scalars<T> s = *state;
  if (s.done != 0) return;  // uniform over the cluster, and before any access to another block
  const auto cluster = cooperative_groups::this_cluster();
  const auto [blocks, rank, begin, count] = this_block_slab(v.n, slab);
  T* const r = reinterpret_cast<T*>(resident_bytes);
  T* const p_even = r + slab;
  T* const p_odd = p_even + slab;
  T* const ap = p_odd + slab;
  T* const x = ap + slab;
  T* const inverse = x + slab;  // only when Weighted (the launch sized the memory for it)
  const int tid = static_cast<int>(threadIdx.x);
  // p = 0, so that the first direction is r whatever beta holds (as the start leaves it in global memory).
  T* const p_first = s.iteration % 2 == 0 ? p_even : p_odd;
  for (int l = tid; l < count; l += block_size) {
    r[l] = v.r[begin + l];
    x[l] = v.x[begin + l];
    p_first[l] = 0;
    if constexpr (Weighted) inverse[l] = v.inverse_diagonal[begin + l];
  }
  const auto slabs = [&](const T* local) { return cluster_slabs<T>{local, begin, count, slab}; };
  // Participation: every thread of every block of the cluster (no block has left: `done` is uniform). Data: each
  // block's entries [0, count) of r, x, the first direction and M^-1. Publishes them to the cluster, and makes
  // sure every block has started (its shared memory exists) before any block reads another's.
  cluster.sync();
  while (s.done == 0) {  // uniform over the cluster: every thread holds the same s
    T* const p_old = s.iteration % 2 == 0 ? p_even : p_odd;
    T* const p_new = s.iteration % 2 == 0 ? p_odd : p_even;
    const cluster_direction<T, Weighted> next{slabs(r), slabs(p_old), slabs(inverse), s.beta};
    for (int l = tid; l < count; l += block_size)  // data bound: this block's rows
      p_new[l] = next(begin + l);
    // Participation: every thread of the block (the loop condition is uniform over the cluster). Data: the block's
    // own entries [0, count) of p_new. Publishes them to the block's rows of A p below, which read them instead of
    // forming them again at every point a row reads.
    __syncthreads();
    const cluster_fresh_direction<T, Weighted> fresh{p_new, next};
    T sum = 0;
    for (int l = tid; l < count; l += block_size) {  // data bound: this block's rows
      const T ap_i = static_cast<T>(op(fresh, begin + l));
      ap[l] = ap_i;
      sum += p_new[l] * ap_i;
    }
    const T p_ap = block::reduce_shuffle<block_size>(sum, scratch_a, plus{});
    if (tid == 0) share_a = p_ap;
    // Participation: every thread of every block (the loop condition is uniform). Data: share_a of every block;
    // p_new and Ap for each block's own rows (read by their owner only). Publishes every block's share of p . Ap.
    // It also ends every block's reads of the others' r and p_old, which phase B and the next phase A overwrite.
    cluster.sync();
    s.p_ap = cluster_total(share_a, blocks);
    const T alpha = s.rho / s.p_ap;
    sum = 0;
    for (int l = tid; l < count; l += block_size)  // data bound: this block's rows
      sum += ksync::detail::cg_classic_update<Weighted>(x, r, static_cast<const T*>(p_new), static_cast<const T*>(ap),
                                                        static_cast<const T*>(inverse), alpha, l);
    const T rho_next = block::reduce_shuffle<block_size>(sum, scratch_b, plus{});
    if (tid == 0) share_b = rho_next;
    // Participation: every thread of every block (as above). Data: share_b of every block; r and p_new for each
    // block's rows. Publishes the new residual and direction, whose entries the next phase A reads across the
    // cluster, and every block's share of r . M^-1 r; it also ends every block's reads of share_a, which the
    // next phase A rewrites.
    cluster.sync();
    s.rho_next = cluster_total(share_b, blocks);
    // Every thread takes the step on its own copy; one records the history.
    ksync::detail::cg_advance(s, tolerance, max_iterations, rank == 0 && tid == 0 ? history : nullptr);
  }
  for (int l = tid; l < count; l += block_size) {
    v.x[begin + l] = x[l];
    v.r[begin + l] = r[l];
  }
  if (rank == 0 && tid == 0) *state = s;
  // Participation: every thread of every block (every block left the loop after the same iteration). Data:
  // none new. Keeps each block's shared memory alive until every block has read its share_b.
  cluster.sync();
#endif
}

}  // namespace ksync::cuda::detail::cg_kernels
