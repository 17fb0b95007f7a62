// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The spin-loop volatile trap, compiled to PTX and read back by check_spin_loops.py: three kernels wait for
// another block to set `*flag`, and two run ksync's own grid barriers. Only the first is wrong: nothing tells the
// compiler that the plain load can change, so it may load once and spin on a register. The volatile load and the
// acquire load are re-issued on every iteration. These kernels are never launched; the test reads their PTX.
#include <ksync/cuda/grid/barrier.cuh>

#include <cuda/atomic>

// The hazard: a plain global load in a spin loop.
extern "C" __global__ void spin_on_plain_flag(const int* flag, int* done) {
  while (*flag == 0) {
  }
  *done = 1;
}

// The fix: a volatile load is performed every time it is written.
extern "C" __global__ void spin_on_volatile_flag(const volatile int* flag, int* done) {
  while (*flag == 0) {
  }
  *done = 1;
}

// The modern fix: an acquire load at device scope, which also orders the data the flag publishes.
extern "C" __global__ void spin_on_acquire_flag(int* flag, int* done) {
  const cuda::atomic_ref<int, cuda::thread_scope_device> ready(*flag);
  while (ready.load(cuda::memory_order_acquire) == 0) {
  }
  *done = 1;
}

// ksync's two grid barriers (grid/barrier.cuh): their wait loops must re-read the flag as well.
extern "C" __global__ void library_spin_barrier(ksync::cuda::spin_barrier_state* state) {
  // Participation: every thread of every block of the grid (never launched; only its PTX is read). Data:
  // none; the call is here for its wait loop.
  (void)ksync::cuda::spin_barrier_sync(state, 1000);
}

extern "C" __global__ void library_volatile_spin_barrier(ksync::cuda::volatile_spin_barrier_state* state) {
  unsigned int sense = 0;
  // Participation: every thread of every block of the grid (never launched; only its PTX is read). Data:
  // none; the call is here for its wait loop.
  (void)ksync::cuda::volatile_spin_barrier_sync(state, sense, 1000);
}
