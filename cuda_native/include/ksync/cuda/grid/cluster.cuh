// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Thread-block clusters (sm_90): the blocks of a cluster run at once on one GPC, synchronize with
// cluster.sync() and read each other's shared memory (distributed shared memory, cluster.map_shared_rank).
//   cluster_launch   a kernel launched with cudaLaunchKernelEx and a cluster dimension of cluster_sizes
//                    (cluster_support.hpp: 1, 2, 4, 8 or 16; 16 needs the non-portable attribute, which the
//                    constructor sets); the constructor refuses with std::invalid_argument a device without
//                    clusters, a kernel compiled without sm_90 code (cluster_support.hpp), another size, or a
//                    size the device does not accept for this kernel and block size.
//   largest_cluster_size  the largest of cluster_sizes, at most `at_most`, that the device takes for a kernel
//                    and block size (cudaOccupancyMaxPotentialClusterSize), for cluster_launch
//   active_clusters  how many clusters of a shape the device holds at once, 0 where none (never throws)
//   cluster_sync_barrier  cluster.sync() as a Barrier of grid/barrier.cuh, for a kernel whose grid is one
//                    cluster (ksync::cuda::cg's persistent_cluster form)
//   cluster_rotate   a building block: each block publishes a value in its shared memory and reads that of
//                    the block `shift` ranks further on in its cluster.
// Device code that uses clusters compiles for every architecture: below sm_90 it is a trap that no launch
// reaches, since cluster_launch refuses such code first (KSYNC_CLUSTER_CODE says which form is compiled).
#pragma once

#include <ksync/cuda/detail/one_of.hpp>
#include <ksync/cuda/device/cluster_support.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/runtime.hpp>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>

// 1 where the code being compiled can use thread-block clusters (the host pass, and device code for sm_90
// and newer), 0 in device code for older architectures.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define KSYNC_CLUSTER_CODE 0
#else
#define KSYNC_CLUSTER_CODE 1
#endif

namespace ksync::cuda {

namespace detail {

// The launch configuration of a grid of one-dimensional clusters of cluster_size blocks (one cluster until
// the launch sets gridDim): what cluster_launch launches with and what active_clusters asks the occupancy
// calculator about. Not copyable: config.attrs points into it.
struct cluster_config {
  cluster_config(int block_size, int cluster_size, std::size_t dynamic_shared_bytes, cudaStream_t stream) {
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = static_cast<unsigned int>(cluster_size);
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.gridDim = dim3(static_cast<unsigned int>(cluster_size));
    config.blockDim = dim3(static_cast<unsigned int>(block_size));
    config.dynamicSmemBytes = dynamic_shared_bytes;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  cluster_config(const cluster_config&) = delete;
  cluster_config& operator=(const cluster_config&) = delete;
  cudaLaunchAttribute attribute{};
  cudaLaunchConfig_t config{};
};

// Allows `kernel` clusters above 8 blocks (the non-portable sizes) where cluster_size asks for one; returns the
// runtime's answer with the error cleared (cudaSuccess for the portable sizes, which need nothing).
template <class... Parameters>
cudaError_t allow_cluster_size(void (*kernel)(Parameters...), int cluster_size) {
  if (cluster_size <= 8) return cudaSuccess;
  const cudaError_t allowed = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (allowed != cudaSuccess) (void)cudaGetLastError();
  return allowed;
}

}  // namespace detail

template <class... Parameters>
class cluster_launch {
 public:
  cluster_launch(const char* where, void (*kernel)(Parameters...), int block_size, int cluster_size,
                 std::size_t dynamic_shared_bytes, cudaStream_t stream)
      : where_(where), kernel_(kernel), shape_(block_size, cluster_size, dynamic_shared_bytes, stream) {
    detail::check_one_of(where, "cluster_size", cluster_size, cluster_sizes);
    detail::check_argument(block_size >= 1 && block_size <= 1024, where, "block_size = ", block_size,
                           " is outside [1, 1024]");
    const int device = stream_device(stream);
    detail::require_cluster_code(where, reinterpret_cast<const void*>(kernel), device);
    const cudaError_t allowed = detail::allow_cluster_size(kernel, cluster_size);
    detail::check_argument(allowed == cudaSuccess, where, "cluster_size = ", cluster_size,
                           " needs the non-portable cluster size attribute, which device ", device, " refused (",
                           cudaGetErrorName(allowed), ")");
    cluster_size_ = static_cast<unsigned int>(cluster_size);
    // A cluster the device cannot hold shows here as 0 clusters or as an error: both are the caller's
    // choice of sizes, reported as such.
    const cudaError_t occupancy = cudaOccupancyMaxActiveClusters(&max_active_clusters_, kernel, &shape_.config);
    if (occupancy != cudaSuccess) (void)cudaGetLastError();
    detail::check_argument(occupancy == cudaSuccess && max_active_clusters_ > 0, where, "cluster_size = ", cluster_size,
                           " is refused for blocks of ", block_size, " threads and ", dynamic_shared_bytes,
                           " bytes of dynamic shared memory on device ", device, " (", cudaGetErrorName(occupancy),
                           ", ", max_active_clusters_, " clusters fit)");
  }

  [[nodiscard]] unsigned int cluster_size() const noexcept { return cluster_size_; }
  // Clusters of this kernel the device holds at once (clusters are placed within one GPC each, so this can
  // be fewer than the per-multiprocessor block limit suggests).
  [[nodiscard]] int max_active_clusters() const noexcept { return max_active_clusters_; }

  // Launches `clusters` clusters (clusters x cluster_size() blocks).
  template <class... Arguments>
  void launch(unsigned int clusters, Arguments... arguments) {
    static_assert(sizeof...(Parameters) == sizeof...(Arguments),
                  "cluster_launch::launch: pass exactly one argument per kernel parameter");
    detail::check_argument(clusters >= 1 && clusters <= 0x7fffffffu / cluster_size_, where_, "clusters = ", clusters,
                           " is outside [1, ", 0x7fffffffu / cluster_size_, "]");
    shape_.config.gridDim = dim3(clusters * cluster_size_);
    KSYNC_CUDA_CHECK(cudaLaunchKernelEx(&shape_.config, kernel_, static_cast<Parameters>(arguments)...));
  }

 private:
  const char* where_;
  void (*kernel_)(Parameters...);
  detail::cluster_config shape_;  // not copyable, and so neither is cluster_launch
  unsigned int cluster_size_ = 1;
  int max_active_clusters_ = 0;
};

// The largest of cluster_sizes no larger than `at_most` (at least 1) that `device` takes for `kernel` in blocks
// of block_size threads with dynamic_shared_bytes each. Throws std::invalid_argument as cluster_launch does for
// a device or kernel without clusters, and when not even one-block clusters fit.
template <class... Parameters>
[[nodiscard]] int largest_cluster_size(const char* where, void (*kernel)(Parameters...), int block_size,
                                       std::size_t dynamic_shared_bytes, int device, int at_most) {
  detail::check_argument(at_most >= 1, where, "at_most = ", at_most, " must be at least 1");
  detail::require_cluster_code(where, reinterpret_cast<const void*>(kernel), device);
  const device_guard on_device(device);
  // Without the attribute the device offers only the portable sizes (up to 8); a refusal leaves those.
  (void)detail::allow_cluster_size(kernel, cluster_sizes.back());
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned int>(cluster_sizes.back()));
  config.blockDim = dim3(static_cast<unsigned int>(block_size));
  config.dynamicSmemBytes = dynamic_shared_bytes;
  int potential = 0;
  const cudaError_t asked = cudaOccupancyMaxPotentialClusterSize(&potential, kernel, &config);
  if (asked != cudaSuccess) (void)cudaGetLastError();
  detail::check_argument(asked == cudaSuccess && potential >= 1, where, "no cluster of blocks of ", block_size,
                         " threads and ", dynamic_shared_bytes, " bytes of dynamic shared memory fits on device ",
                         device, " (", cudaGetErrorName(asked), ")");
  int largest = cluster_sizes.front();
  for (const int size : cluster_sizes)
    if (size <= at_most && size <= potential) largest = size;
  return largest;
}

// Clusters of cluster_size blocks of `kernel` (block_size threads and dynamic_shared_bytes each) that the current
// device holds at once; 0 where it holds none or refuses the shape. Never throws: for callers with another way
// to run (cluster_launch refuses the same shapes with a message).
template <class... Parameters>
[[nodiscard]] int active_clusters(void (*kernel)(Parameters...), int block_size, int cluster_size,
                                  std::size_t dynamic_shared_bytes) {
  if (detail::allow_cluster_size(kernel, cluster_size) != cudaSuccess) return 0;
  const detail::cluster_config shape(block_size, cluster_size, dynamic_shared_bytes, nullptr);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &shape.config) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return clusters;
}

// cluster.sync() as a barrier argument of a kernel template (grid/barrier.cuh's shape) whose grid is one
// cluster: every block of the grid arrives. A hardware barrier with release and acquire at cluster scope, so
// the blocks' global-memory writes before it are seen by every block of the cluster after it. The call sites
// name their participation and data bounds and what each barrier publishes.
struct cluster_sync_barrier {
  __device__ bool arrive_and_wait() const {
#if !KSYNC_CLUSTER_CODE
    __trap();  // not reached: cluster_launch refuses kernels without sm_90 code
#else
    cooperative_groups::this_cluster().sync();
#endif
    return true;
  }
};

// Every thread of every block of the cluster calls. Block r publishes `mine` (in its shared memory `slot`)
// and returns the value of block (r + shift) % size of its cluster. Two cluster barriers: the first
// publishes every block's slot, the second keeps each block (and its shared memory) alive until its
// neighbour has read it.
template <class T>
__device__ T cluster_rotate(T& slot, const T& mine, unsigned int shift) {
#if !KSYNC_CLUSTER_CODE
  (void)slot;
  (void)shift;
  __trap();  // not reached: cluster_launch refuses kernels without sm_90 code
  return mine;
#else
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) slot = mine;
  // Participation: every thread of every block of the cluster. Data: `slot` of each block (one value,
  // written by its thread 0). Publishes every block's slot to the whole cluster.
  cluster.sync();
  const unsigned int source = (cluster.block_rank() + shift) % cluster.num_blocks();
  const T theirs = *cluster.map_shared_rank(&slot, source);
  // Participation: every thread of every block of the cluster. Data: none new; no block leaves (freeing its
  // shared memory) or overwrites its slot while another block still reads it.
  cluster.sync();
  return theirs;
#endif
}

}  // namespace ksync::cuda
