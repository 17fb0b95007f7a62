// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// How the spmv kernels read x: entry j through the read-only data path (__ldg). x is not written while they
// run (ksync::cuda::spmv refuses a y that overlaps it), which is what the non-coherent path needs.
#pragma once

#include <cstdint>

namespace ksync::cuda::detail {

template <class T>
struct x_reader {
  const T* x;
  __device__ T operator()(std::int64_t j) const { return __ldg(x + j); }
};

}  // namespace ksync::cuda::detail
