// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The combine strategies of ksync::cuda::node::reduce, one file each in this folder, and the one table from
// node::combine_strategy to them (ksync/detail/strategy_table.hpp checks it against combine_strategy_rows).
// Private to the native half (node/reduce.cpp).
#pragma once

#include <ksync/cuda/detail/node/reduce/nccl.hpp>
#include <ksync/cuda/detail/node/reduce/peer_gather.hpp>

namespace ksync::cuda::node::combining {

using strategies = ksync::detail::strategy_table<strategy_half::native, peer_gather, nccl>;

}  // namespace ksync::cuda::node::combining
