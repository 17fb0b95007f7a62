// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// reduce_strategy::cluster (sm_90): the blocks of each thread-block cluster combine their values through
// distributed shared memory after cluster.sync(); then each cluster's rank-0 block takes the single-pass
// finish (a partial per cluster, a ticket, the last cluster combines). Compiled as a trap where the code
// cannot hold clusters (KSYNC_CLUSTER_CODE); cluster_launch refuses such code before launching.
#pragma once

#include <ksync/cuda/detail/reduce/kernel.cuh>
#include <ksync/cuda/grid/cluster.cuh>
#include <ksync/cuda/grid/last_block.cuh>
#include <ksync/cuda/warp/reduce.cuh>
#include <ksync/detail/strategy_table.hpp>

#include <cooperative_groups.h>

#include <algorithm>

namespace ksync::cuda::detail::reduce_strategies {

struct cluster : one_store_result<reduce_strategy::cluster> {
  template <int BlockSize, class T, class Op>
  __device__ static void finish(T block_value, T* partials, unsigned int* ticket, const reduce_target<T>& result,
                                block::shuffle_storage<T, BlockSize>& scratch, Op op) {
#if KSYNC_CLUSTER_CODE
    namespace cg = cooperative_groups;
    const cg::cluster_group group = cg::this_cluster();
    __shared__ T block_slot;
    if (threadIdx.x == 0) block_slot = block_value;
    // Participation: every thread of every block of the cluster. Data: block_slot of each block (one value).
    // Publishes each block's value to the cluster's rank-0 block through distributed shared memory.
    group.sync();
    T cluster_value = Op::template identity<T>();
    const unsigned int blocks_in_cluster = group.num_blocks();
    if (group.block_rank() == 0 && threadIdx.x < 32) {  // uniform over warp 0 of the rank-0 block
      const unsigned int lane = threadIdx.x;
      // Data bound: lanes past the cluster's size read nothing (cluster sizes are at most 16).
      T value = lane < blocks_in_cluster ? *group.map_shared_rank(&block_slot, lane) : Op::template identity<T>();
      cluster_value = warp::reduce_prefix(32u, value, op);
    }
    // Participation: every thread of every block of the cluster. Data: none new; it keeps every block (and so
    // its shared memory) alive until rank 0 has read it: distributed shared memory of an exited block is gone.
    group.sync();
    if (group.block_rank() == 0) {  // block-uniform
      const unsigned int cluster_index = blockIdx.x / blocks_in_cluster;
      const unsigned int clusters = gridDim.x / blocks_in_cluster;
      finish_last_block<BlockSize>(cluster_value, cluster_index, clusters, partials, ticket, result, scratch, op);
    }
#else
    (void)block_value, (void)partials, (void)ticket, (void)result, (void)scratch, (void)op;
    __trap();  // not reached: cluster_launch refuses code without clusters before launching
#endif
  }

  template <int BlockSize, class Reader, class Op>
  static void launch(cudaStream_t stream, const Reader& reader, std::size_t n, Op op,
                     reduce_target<typename Reader::value_type> result, const reduce_tuning& tuning) {
    using T = typename Reader::value_type;
    const reduce_grid grid = plan_reduce_grid<BlockSize, cluster, Reader, Op>(stream, n, tuning);
    cluster_launch launch("ksync::cuda::reduce", reduce_kernel<BlockSize, cluster, Reader, Op>, BlockSize,
                          tuning.cluster_size, 0, stream);
    // Whole clusters, no more than fit at once: clusters are placed within one GPC each, so fewer blocks are
    // resident than the per-multiprocessor limit suggests, and a grid beyond that would run a second,
    // mostly idle wave. Extra blocks of the last cluster fold nothing and contribute the identity.
    const unsigned int cluster_size = launch.cluster_size();
    const unsigned int clusters = std::min((grid.blocks + cluster_size - 1) / cluster_size,
                                           static_cast<unsigned int>(launch.max_active_clusters()));
    launch.launch(std::max(1u, clusters), reader, n, op, static_cast<T*>(grid.workspace->partials),
                  grid.workspace->ticket, result);
  }
};

}  // namespace ksync::cuda::detail::reduce_strategies
