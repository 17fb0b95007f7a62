// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Binary operators the reductions combine values with. Each has an identity, which threads with no valid
// element contribute, so that every thread can take part in a barrier without touching invalid data.
#pragma once

#include <cuda/std/limits>

namespace ksync::cuda {

struct plus {
  template <class T>
  __host__ __device__ static constexpr T identity() {
    return T{};
  }
  template <class T>
  __host__ __device__ constexpr T operator()(const T& a, const T& b) const {
    return a + b;
  }
};

struct minimum {
  template <class T>
  __host__ __device__ static constexpr T identity() {
    // +infinity for floating types (a true identity, as Kokkos::reduction_identity has it), max() otherwise.
    if constexpr (::cuda::std::numeric_limits<T>::has_infinity) {
      return ::cuda::std::numeric_limits<T>::infinity();
    } else {
      return ::cuda::std::numeric_limits<T>::max();
    }
  }
  template <class T>
  __host__ __device__ constexpr T operator()(const T& a, const T& b) const {
    return b < a ? b : a;
  }
};

struct maximum {
  template <class T>
  __host__ __device__ static constexpr T identity() {
    if constexpr (::cuda::std::numeric_limits<T>::has_infinity) {
      return -::cuda::std::numeric_limits<T>::infinity();
    } else {
      return ::cuda::std::numeric_limits<T>::lowest();
    }
  }
  template <class T>
  __host__ __device__ constexpr T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};

}  // namespace ksync::cuda
