// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// combine_strategy::nccl — each rank reduces its part into its result (or scratch), then one NCCL
// all-reduce of those values (builds with NCCL only; node::reduce refuses it elsewhere).
#pragma once

#include <ksync/cuda/detail/node/reduce/slots.hpp>
#include <ksync/cuda/device/reduce.hpp>
#include <ksync/cuda/node/nccl.hpp>
#include <ksync/cuda/node/reduce.hpp>
#include <ksync/detail/strategy_table.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace ksync::cuda::node::combining {

struct nccl : ksync::detail::implements<combine_strategy::nccl> {
  template <class T>
  static void run(device_group& group, const distributed_buffer<T>& data, reduce_op op, std::span<T* const> results) {
    // Each rank's own value: in its result where it asked for one, else in its scratch slot.
    std::vector<T*> buffers(results.begin(), results.end());
    for (int r = 0; r < group.size(); ++r) {
      const auto rank = static_cast<std::size_t>(r);
      if (buffers[rank] == nullptr) buffers[rank] = scratch_slot<T>(group, r, group.size());
      const cuda::device_guard on(group.device(r));
      ksync::cuda::reduce(group.stream(r), data.part(r), data.part_size(r), op, reduce_strategy::automatic,
                          buffers[rank]);
    }
    cuda::detail::nccl_all_reduce_in_place(group, std::span<T* const>(buffers), op);
  }
};

}  // namespace ksync::cuda::node::combining
