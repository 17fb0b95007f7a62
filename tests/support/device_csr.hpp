// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A host CSR matrix's arrays copied to the device, and the native matrix over them (checked when made): what
// the native CG tests solve.
#pragma once

#include <ksync/csr.hpp>
#include <ksync/cuda/csr_matrix.hpp>
#include <ksync/cuda/device_buffer.hpp>

#include <cuda_runtime_api.h>

namespace ksync::test {

template <class T, class Index, class Offset>
struct device_matrix {
  explicit device_matrix(const ksync::host_csr_matrix<T, Index, Offset>& host)
      : row_offsets(host.row_offsets),
        columns(host.columns),
        values(host.values),
        a(cudaStreamPerThread, host.rows, host.cols, host.nnz(), row_offsets.data(), columns.data(), values.data()) {}
  ksync::cuda::device_buffer<Offset> row_offsets;
  ksync::cuda::device_buffer<Index> columns;
  ksync::cuda::device_buffer<T> values;
  ksync::cuda::csr_matrix<T, Index, Offset> a;
};

}  // namespace ksync::test
