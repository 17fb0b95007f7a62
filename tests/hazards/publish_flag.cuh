// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Hazard 10 (a flag is not a barrier): block 2p writes data[p] and raises flag[p]; block 2p + 1
// waits for the flag and reads data[p]. With a plain store and a volatile spin nothing orders the data
// against the flag: the writer's stores may become visible in either order, and the reader's data load may
// be served from before the wait (its own earlier read, a register or an L1 line). Each writer first waits
// 50 µs (writer_delay_ns), so the reader's early read precedes the write and the hazard shows at run time
// as a stale value, not just in the PTX. The twin publishes with
// a release store and waits with an acquire load (device scope). Included by grid_cases.cu (run on the
// GPU) and by tests/ptx/publish_flag.cu (read back as PTX by check_publish_flag.py).
#pragma once

#include <cuda/atomic>

namespace ksync::hazards {

inline constexpr unsigned int writer_delay_ns = 50'000;

// Reader side: the data as seen before the wait (kept, so the early read is not optimized away) and after.
struct flag_reading {
  int before;
  int after;
};

}  // namespace ksync::hazards

// The writer (even blocks) and the reader (odd blocks) of pair blockIdx.x / 2, thread 0 of each; the spin
// gives up after spin_limit rounds (never a hang).
extern "C" __global__ void publish_with_plain_flag(int* data, int* flag, ksync::hazards::flag_reading* seen,
                                                   unsigned int spin_limit) {
  const unsigned int pair = blockIdx.x / 2;
  if (threadIdx.x != 0) return;
  if (blockIdx.x % 2 == 0) {
    __nanosleep(ksync::hazards::writer_delay_ns);
    data[pair] = static_cast<int>(pair) + 1;
    *static_cast<volatile int*>(flag + pair) = 1;  // hazard: no release, no fence
  } else {
    const int before = data[pair];
    // The spin (hazard): participation is one thread of each block of the pair; data: data[pair], which
    // this volatile flag does not order — the wait publishes nothing.
    for (unsigned int spins = 0; *static_cast<volatile int*>(flag + pair) == 0 && spins < spin_limit; ++spins) {
    }
    seen[pair] = {before, data[pair]};  // hazard: nothing orders this load after the flag's
  }
}

extern "C" __global__ void publish_with_release_flag(int* data, int* flag, ksync::hazards::flag_reading* seen,
                                                     unsigned int spin_limit) {
  const unsigned int pair = blockIdx.x / 2;
  if (threadIdx.x != 0) return;
  const cuda::atomic_ref<int, cuda::thread_scope_device> raised(flag[pair]);
  if (blockIdx.x % 2 == 0) {
    __nanosleep(ksync::hazards::writer_delay_ns);
    data[pair] = static_cast<int>(pair) + 1;
    raised.store(1, cuda::memory_order_release);  // publishes data[pair] with the flag
  } else {
    const int before = data[pair];
    // The spin: participation is one thread of each block of the pair (both resident: two blocks of 32
    // threads per pair); data: data[pair]. The acquire load orders the data read after the flag.
    for (unsigned int spins = 0; raised.load(cuda::memory_order_acquire) == 0 && spins < spin_limit; ++spins) {
    }
    seen[pair] = {before, data[pair]};
  }
}
