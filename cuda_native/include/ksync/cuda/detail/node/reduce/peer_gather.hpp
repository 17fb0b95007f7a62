// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// combine_strategy::peer_gather — ksync's own: each rank reduces its part, the partials are copied to rank
// 0 (peer to peer, or staged through pinned host memory: device_group::copy), rank 0 combines them and the
// result is copied to every rank that asked for it.
#pragma once

#include <ksync/cuda/detail/node/reduce/slots.hpp>
#include <ksync/cuda/device/reduce.hpp>
#include <ksync/cuda/node/reduce.hpp>
#include <ksync/detail/strategy_table.hpp>

#include <span>
#include <vector>

namespace ksync::cuda::node::combining {

struct peer_gather : ksync::detail::implements<combine_strategy::peer_gather> {
  template <class T>
  static void run(device_group& group, const distributed_buffer<T>& data, reduce_op op, std::span<T* const> results) {
    const int count = group.size();
    for (int r = 0; r < count; ++r) {
      const cuda::device_guard on(group.device(r));
      T* partial = r == 0 ? scratch_slot<T>(group, 0, 0) : scratch_slot<T>(group, r, count);
      ksync::cuda::reduce(group.stream(r), data.part(r), data.part_size(r), op, reduce_strategy::automatic, partial);
    }
    std::vector<copy_request> gather;  // each copy follows its rank's reduction; stream(0) waits for them all
    for (int r = 1; r < count; ++r)
      gather.push_back({.to_rank = 0,
                        .dst = scratch_slot<T>(group, 0, r),
                        .from_rank = r,
                        .src = scratch_slot<T>(group, r, count),
                        .bytes = sizeof(T)});
    group.copy(gather);
    T* result = results[0] != nullptr ? results[0] : scratch_slot<T>(group, 0, count);
    {
      const cuda::device_guard on(group.device(0));
      ksync::cuda::reduce(group.stream(0), scratch_slot<T>(group, 0, 0), static_cast<std::size_t>(count), op,
                          reduce_strategy::automatic, result);
    }
    std::vector<copy_request> broadcast;
    for (int r = 1; r < count; ++r)
      if (results[static_cast<std::size_t>(r)] != nullptr)
        broadcast.push_back({.to_rank = r,
                             .dst = results[static_cast<std::size_t>(r)],
                             .from_rank = 0,
                             .src = result,
                             .bytes = sizeof(T)});
    group.copy(broadcast);
  }
};

}  // namespace ksync::cuda::node::combining
