// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The arithmetic of the stencils both halves run (plain C++, callable from CUDA and Kokkos kernels), written
// once so that every form and backend computes the same bits.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define KSYNC_HOST_DEVICE __host__ __device__
#else
#define KSYNC_HOST_DEVICE
#endif

namespace ksync {

// One Jacobi update of an interior point of the 1-D Laplace problem: the mean of its two neighbours (the
// two end points keep their values). Written as (left + right) * 0.5: no product feeds a sum, so no
// compiler can contract it into an fma, and the result is the same on every backend; the product by 0.5
// is exact.
template <class T>
KSYNC_HOST_DEVICE constexpr T jacobi_update(T left, T right) {
  return (left + right) * static_cast<T>(0.5);
}

}  // namespace ksync
