// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/device/cluster_support.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/runtime.hpp>

#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>

namespace ksync::cuda {
namespace {

// Compiled like every kernel of this library: its code version on a device is that of ksync's kernels.
__global__ void cluster_support_probe() {}

// The reason `kernel` cannot run in clusters on `device`, or an empty string when it can.
std::string cluster_gap(const void* kernel, int device) {
  cudaDeviceProp properties{};
  KSYNC_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  std::ostringstream reason;
  reason << "device " << device << " (" << properties.name << ", compute capability " << properties.major << '.'
         << properties.minor << ") ";
  int clusters = 0;
  KSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device));
  if (clusters == 0) {
    reason << "has no thread-block clusters; they need compute capability 9.0 or newer";
    return reason.str();
  }
  const device_guard on_device(device);
  cudaFuncAttributes attributes{};
  KSYNC_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  // ptxVersion is the virtual architecture the code was compiled for (80 for sm_80 machine code and for
  // compute_80 PTX alike); cluster code exists only from 90 on.
  if (attributes.ptxVersion < 90) {
    reason << "runs this code compiled for compute_" << attributes.ptxVersion
           << ", which has no thread-block clusters: build with 90 (or newer) in CMAKE_CUDA_ARCHITECTURES";
    return reason.str();
  }
  return {};
}

}  // namespace

cluster_support query_cluster_support(int device) {
  std::string reason = cluster_gap(reinterpret_cast<const void*>(&cluster_support_probe), device);
  const bool available = reason.empty();
  return {.available = available, .reason = std::move(reason)};
}

namespace detail {

void require_cluster_code(const char* where, const void* kernel, int device) {
  // Asked on every cluster launch (reduce_strategy::cluster builds one per call): the answer for a kernel
  // and a device never changes, and cudaGetDeviceProperties is too slow to repeat per launch.
  static std::mutex guard;
  static std::map<std::pair<const void*, int>, std::string> answers;
  std::string reason;
  {
    const std::lock_guard<std::mutex> lock(guard);
    const auto known = answers.find({kernel, device});
    if (known != answers.end()) {
      reason = known->second;
    } else {
      reason = cluster_gap(kernel, device);
      answers.emplace(std::pair{kernel, device}, reason);
    }
  }
  check_argument(reason.empty(), where, reason);
}

}  // namespace detail
}  // namespace ksync::cuda
