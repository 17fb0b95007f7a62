// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The value types and (Index, Offset) pairs ksync::cuda::csr_matrix is compiled for, written once for every
// source that instantiates an operation on it (cg_csr.cu, spmv.cu): KSYNC_FOR_EACH_CSR_INSTANCE(X) expands
// X(T, Index, Offset) for each.
#pragma once

#include <cstdint>

#define KSYNC_FOR_EACH_CSR_INSTANCE(X)  \
  X(float, std::int32_t, std::int32_t)  \
  X(float, std::int32_t, std::int64_t)  \
  X(float, std::int64_t, std::int64_t)  \
  X(double, std::int32_t, std::int32_t) \
  X(double, std::int32_t, std::int64_t) \
  X(double, std::int64_t, std::int64_t)
