// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// KSYNC_HOST_DEVICE marks the shared core's functions that both halves' kernels call: __host__ __device__
// where a CUDA or HIP compiler reads the file, nothing where a plain C++ compiler does (Kokkos' host
// backends).
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define KSYNC_HOST_DEVICE __host__ __device__
#else
#define KSYNC_HOST_DEVICE
#endif
