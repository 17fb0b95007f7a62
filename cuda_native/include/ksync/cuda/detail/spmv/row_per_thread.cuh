// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// spmv_strategy::row_per_thread (native) — each thread folds whole rows with the matrix's own row operator
// (csr_row_apply, ksync/csr.hpp) in a grid-stride loop: no collective, no barrier.
#pragma once

#include <ksync/cuda/csr_matrix.hpp>
#include <ksync/cuda/detail/spmv/reader.cuh>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/grid/stride.cuh>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>

namespace ksync::cuda::detail {

template <int BlockSize, class T, class Index, class Offset>
__global__ void __launch_bounds__(BlockSize)
    spmv_row_per_thread(csr_matrix<T, Index, Offset> a, const T* __restrict__ x, T* __restrict__ y) {
  for (std::int64_t i = grid_stride_begin(); i < a.rows(); i += grid_stride())
    y[i] = a(x_reader<T>{x}, i);
}

namespace spmv_strategies {

struct row_per_thread : ksync::detail::implements<spmv_strategy::row_per_thread> {
  static constexpr int block_size = 256;
  template <class T, class Index, class Offset>
  static void launch(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, const T* x, T* y) {
    const std::int64_t blocks = std::min<std::int64_t>((a.rows() + block_size - 1) / block_size, INT_MAX);
    spmv_row_per_thread<block_size><<<static_cast<unsigned int>(blocks), block_size, 0, stream>>>(a, x, y);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::spmv (row_per_thread)");
  }
};

}  // namespace spmv_strategies
}  // namespace ksync::cuda::detail
