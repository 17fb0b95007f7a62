// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Where node::reduce's combine strategies keep their partials: each rank's scratch in the group. Private to the
// native half (node/reduce.cpp).
#pragma once

#include <ksync/cuda/node/device_group.hpp>

namespace ksync::cuda::node::combining {

// Slot `slot` of rank r's scratch: slots 0 .. size() - 1 gather the partials on rank 0, slot size() holds a
// rank's own partial or result.
template <class T>
T* scratch_slot(const device_group& group, int rank, int slot) {
  return static_cast<T*>(group.scratch(rank)) + slot;
}

}  // namespace ksync::cuda::node::combining
