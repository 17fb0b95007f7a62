// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The GPU's global timer (%globaltimer, nanoseconds, the same clock on every multiprocessor; it ticks in
// about 1 us steps on some GPUs): timeouts of the spin barriers, and kernels that occupy the GPU for a
// known time in the concurrency measurements and tests.
#pragma once

#include <cstdint>

namespace ksync::cuda {

__device__ inline std::uint64_t global_nanoseconds() {
  std::uint64_t now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// Every thread of the calling block waits until `nanoseconds` have passed since its first read.
__device__ inline void spin_for(std::uint64_t nanoseconds) {
  const std::uint64_t start = global_nanoseconds();
  while (global_nanoseconds() - start < nanoseconds) {
  }
}

}  // namespace ksync::cuda
