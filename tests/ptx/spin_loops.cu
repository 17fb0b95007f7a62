// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Seed 003's volatile trap, compiled to PTX and read back by check_spin_loops.py: three kernels wait for
// another block to set `*flag`. Only the first is wrong: nothing tells the compiler that the plain load can
// change, so it may load once and spin on a register. The volatile load and the acquire load are re-issued
// on every iteration. These kernels are never launched; the test reads their PTX.
#include <cuda/atomic>

// The hazard: a plain global load in a spin loop.
extern "C" __global__ void spin_on_plain_flag(const int* flag, int* done) {
  while (*flag == 0) {
  }
  *done = 1;
}

// Seed 003's fix: a volatile load is performed every time it is written.
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
