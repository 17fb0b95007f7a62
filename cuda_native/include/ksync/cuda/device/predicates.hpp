// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::segment_predicates — block-level count / all / any through the predicate barriers
// __syncthreads_count, __syncthreads_and and __syncthreads_or. One block per segment of `segment_size`
// flags (any size from 1 to 1024); the predicate of an element is `flag != 0`. In a short last segment the
// threads past n still arrive at each barrier (participation) but vote the identity: 0 for count and any,
// 1 for all (data). The portable twin is ksync::segment_predicates.
#pragma once

#include <ksync/types.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace ksync::cuda {

// Asynchronous on `stream`; `out` holds ceil(n / segment_size) summaries. Throws std::invalid_argument for a
// segment size outside [1, 1024] or null pointers with n > 0.
void segment_predicates(cudaStream_t stream, const std::int32_t* flags, std::size_t n, int segment_size,
                        predicate_summary* out);

}  // namespace ksync::cuda
