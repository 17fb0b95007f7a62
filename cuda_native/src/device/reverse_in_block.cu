// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/device/reverse_in_block.hpp>
#include <ksync/cuda/error.hpp>

#include <cstdint>

namespace ksync::cuda::detail {
namespace {

constexpr int seed_block_size = static_cast<int>(reverse_in_block_capacity);

template <class T>
__global__ void __launch_bounds__(seed_block_size) reverse_in_block_kernel(const T* in, T* out, int n) {
  __shared__ T slots[seed_block_size];
  const int t = static_cast<int>(threadIdx.x);
  slots[t] = t < n ? in[t] : T{};  // data bound: only t < n loads; every thread fills its own slot
  // Participation: all 128 threads of the block, those past n included. Data: slots[0, n) hold the input
  // (slots[n, 128) hold zeros nobody reads). Publishes every load to the threads that read the mirror.
  __syncthreads();
  if (t < n) out[t] = slots[n - 1 - t];
}

}  // namespace

template <class T>
void reverse_in_block(cudaStream_t stream, const T* in, T* out, std::size_t n) {
  check_argument(n <= reverse_in_block_capacity, "ksync::cuda::reverse_in_block", "n = ", n,
                 " exceeds the one block of ", reverse_in_block_capacity, " threads");
  check_argument((in != nullptr && out != nullptr) || n == 0, "ksync::cuda::reverse_in_block",
                 "in or out is null but n = ", n);
  reverse_in_block_kernel<<<1, seed_block_size, 0, stream>>>(in, out, static_cast<int>(n));
  KSYNC_CUDA_CHECK_LAUNCH("reverse_in_block_kernel<<<1, 128>>>");
}

template void reverse_in_block<std::int32_t>(cudaStream_t, const std::int32_t*, std::int32_t*, std::size_t);
template void reverse_in_block<std::int64_t>(cudaStream_t, const std::int64_t*, std::int64_t*, std::size_t);
template void reverse_in_block<float>(cudaStream_t, const float*, float*, std::size_t);
template void reverse_in_block<double>(cudaStream_t, const double*, double*, std::size_t);

}  // namespace ksync::cuda::detail
