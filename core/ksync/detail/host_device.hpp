// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// KSYNC_HOST_DEVICE marks the shared core's functions that both halves' kernels call: __host__ __device__
// where a CUDA or HIP compiler reads the file, nothing where a plain C++ compiler does (Kokkos' host
// backends). KSYNC_INDEPENDENT_ITERATIONS, before a host loop, tells GCC and Clang that its iterations do
// not depend on one another through memory, so that they vectorize it without checking at run time that no
// two of its arrays overlap (GCC stops checking past ten pairs; CG's pipelined update has twelve arrays).
// Only for loops whose arrays are distinct buffers, or share one where an iteration reads and writes its own
// index alone (the pipelined pass of ksync::mpi::cg updates w in place).
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define KSYNC_HOST_DEVICE __host__ __device__
#else
#define KSYNC_HOST_DEVICE
#endif

// KSYNC_ALWAYS_INLINE marks a per-index body that a host loop vectorizes only once it is inlined, where GCC's
// size limits would otherwise keep it a call (CG's pipelined update inside its block loop).
#if defined(__GNUC__) || defined(__clang__)
#define KSYNC_ALWAYS_INLINE [[gnu::always_inline]] inline
#else
#define KSYNC_ALWAYS_INLINE inline
#endif

#if defined(__CUDACC__) || defined(__HIPCC__)
#define KSYNC_INDEPENDENT_ITERATIONS  // left out: a CUDA build's host backends vectorize where GCC's checks let
#elif defined(__clang__)
#define KSYNC_INDEPENDENT_ITERATIONS _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define KSYNC_INDEPENDENT_ITERATIONS _Pragma("GCC ivdep")
#else
#define KSYNC_INDEPENDENT_ITERATIONS
#endif
