// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The grid-stride loop, which every thread of a grid runs over data larger than the grid (a co-resident
// grid of grid/co_resident.cuh, or any other):
//   for (std::int64_t i = grid_stride_begin(); i < n; i += grid_stride()) ...
#pragma once

#include <cstdint>

namespace ksync::cuda {

// The grid-stride loop: this thread's first index and the stride (every thread of the grid once per stride).
__device__ inline std::int64_t grid_stride_begin() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::int64_t grid_stride() {
  return static_cast<std::int64_t>(gridDim.x) * blockDim.x;
}

}  // namespace ksync::cuda
