// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::spmv — the sparse matrix-vector product y = A x of a ksync::cuda::csr_matrix
// (ksync/cuda/csr_matrix.hpp):
//   y[i] = sum over row i's entries k of values[k] * x[columns[k]],  i < a.rows()
// Asynchronous on `stream`. The strategies (ksync::spmv_strategy, ksync/types.hpp; one file each in
// detail/spmv/): row_per_thread (a thread per row), lanes_per_row (a group of 2..32 lanes per row, about a
// quarter of the mean row length, its partial sums combined with __shfl_xor_sync); `automatic` runs
// lanes_per_row once the mean row length reaches 8 (ksync::detail::spmv_long_rows,
// ksync/detail/spmv_choice.hpp), a row per thread below it. Compiled
// for float and double with the index pairs csr_matrix takes. The portable twin is ksync::spmv.
#pragma once

#include <ksync/cuda/csr_matrix.hpp>
#include <ksync/types.hpp>

#include <cuda_runtime_api.h>

namespace ksync::cuda {

// x holds a.cols() values and y a.rows(), in device memory, not overlapping. Throws std::invalid_argument,
// before any work, for a strategy past the rows, null arrays where there are rows, columns or entries, and an
// x that overlaps y.
template <class T, class Index, class Offset>
void spmv(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, const T* x, T* y,
          spmv_strategy strategy = spmv_strategy::automatic);

}  // namespace ksync::cuda
