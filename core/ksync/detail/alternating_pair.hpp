// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Two buffers that trade places every iteration: iteration k reads current(k) (its neighbours too, so it
// cannot be written in place) and writes next(k), which iteration k + 1 reads. CG's directions (both halves'
// fused steps) and the pipelined recurrence's w use it. The buffer is picked by a conditional, never by
// indexing an array with the parity: an array in a by-value kernel argument indexed at run time is copied to
// local memory on a GPU, a local load at every use.
#pragma once

#include <ksync/detail/host_device.hpp>

namespace ksync::detail {

template <class T>
struct alternating_pair {
  T* even;  // current before an even iteration
  T* odd;   // current before an odd one
  [[nodiscard]] KSYNC_HOST_DEVICE T* current(int iteration) const { return iteration % 2 == 0 ? even : odd; }
  [[nodiscard]] KSYNC_HOST_DEVICE T* next(int iteration) const { return iteration % 2 == 0 ? odd : even; }
};

}  // namespace ksync::detail
