// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The element functions the transform and transform_reduce tests of both halves apply: callable on the
// host (references) and on the device (Kokkos functors compiled as CUDA, native kernels).
#pragma once

#include <ksync/detail/host_device.hpp>

namespace ksync::test {

// x < 4 ? x : 2x — not linear, so applying it to partial results instead of elements shows. Keeps
// exact_reduction_input's sums exact (support/reference.hpp).
struct Bend {
  template <class T>
  KSYNC_HOST_DEVICE T operator()(T x) const {
    return x < T(4) ? x : static_cast<T>(2 * x);
  }
};

// 2x + 1: every element changes, and a missed or doubly applied element shows.
struct TwiceAndOne {
  template <class T>
  KSYNC_HOST_DEVICE T operator()(T x) const {
    return static_cast<T>(2 * x + 1);
  }
};

}  // namespace ksync::test
