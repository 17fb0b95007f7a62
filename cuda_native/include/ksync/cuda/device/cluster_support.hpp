// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Whether thread-block clusters can run. Two things must hold: the device has them (compute capability 9.0
// or newer), and the kernel was compiled with sm_90 code for it. A build whose CUDA architectures stop below
// 90 (say 80, or 80-virtual PTX that the driver JIT-compiles) has no cluster code even on an H100: ksync's
// cluster kernels are compiled there as a trap, and every cluster launch is refused before it starts.
//   query_cluster_support(device)   for ksync's own kernels (reduce_strategy::cluster, cluster_launch of a
//                                   ksync kernel): available, or the reason they are refused
// Plain C++: callable without a CUDA compiler.
#pragma once

#include <array>
#include <string>

namespace ksync::cuda {

// The cluster sizes (blocks per cluster) that cluster_launch (grid/cluster.cuh) and reduce_strategy::cluster
// (reduce_tuning::cluster_size) accept: both checks read this list. Sizes above 8 are non-portable, which
// cluster_launch asks the device for.
inline constexpr std::array<int, 5> cluster_sizes{1, 2, 4, 8, 16};

struct cluster_support {
  bool available = false;
  std::string reason;  // empty when available; else the refusal's message without the caller's name
};

// Throws ksync::cuda::cuda_error if the device cannot be queried (for example device is out of range).
[[nodiscard]] cluster_support query_cluster_support(int device);

namespace detail {

// Throws std::invalid_argument("<where>: device D (<name>, compute capability X.Y) ...") unless `kernel`
// (a __global__ function) can be launched in clusters on `device`.
void require_cluster_code(const char* where, const void* kernel, int device);

}  // namespace detail
}  // namespace ksync::cuda
