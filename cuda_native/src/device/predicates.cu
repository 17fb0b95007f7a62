// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/device/predicates.hpp>
#include <ksync/cuda/error.hpp>

#include <climits>

namespace ksync::cuda {
namespace {

__global__ void segment_predicates_kernel(const std::int32_t* flags, std::size_t n, predicate_summary* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool valid = i < n;  // data bound
  const int holds = valid && flags[i] != 0 ? 1 : 0;
  // Each barrier: participation = every thread of the block, past-the-end ones included; data = the votes
  // of threads with i < n (the others vote the identity). Each returns the block-wide vote to every thread.
  const int count = __syncthreads_count(holds);
  const int all = __syncthreads_and(valid ? holds : 1);
  const int any = __syncthreads_or(holds);
  if (threadIdx.x == 0)
    out[blockIdx.x] = predicate_summary{.count = count, .all = all != 0 ? 1 : 0, .any = any != 0 ? 1 : 0};
}

}  // namespace

void segment_predicates(cudaStream_t stream, const std::int32_t* flags, std::size_t n, int segment_size,
                        predicate_summary* out) {
  detail::check_argument(segment_size >= 1 && segment_size <= 1024, "ksync::cuda::segment_predicates",
                         "segment_size = ", segment_size, " is outside [1, 1024]");
  detail::check_argument((flags != nullptr && out != nullptr) || n == 0, "ksync::cuda::segment_predicates",
                         "flags or out is null but n = ", n);
  if (n == 0) return;
  const std::size_t segments =
      (n + static_cast<std::size_t>(segment_size) - 1) / static_cast<std::size_t>(segment_size);
  detail::check_argument(segments <= static_cast<std::size_t>(INT_MAX), "ksync::cuda::segment_predicates", "n = ", n,
                         " needs more blocks than a grid holds");
  segment_predicates_kernel<<<static_cast<unsigned>(segments), segment_size, 0, stream>>>(flags, n, out);
  KSYNC_CUDA_CHECK_LAUNCH("segment_predicates_kernel");
}

}  // namespace ksync::cuda
