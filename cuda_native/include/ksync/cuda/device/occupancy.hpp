// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The occupancy model: how many blocks of a kernel one multiprocessor holds at once. It is the
// smallest of four limits, each computed from cudaDeviceProp and cudaFuncAttributes with the hardware's
// allocation granularities:
//   blocks         the multiprocessor's slot count (maxBlocksPerMultiProcessor: 32 on sm_90);
//   warps          warp slots (maxThreadsPerMultiProcessor / 32) over the block's warps, rounded up;
//   registers      registers are handed to warps in units of 256 (numRegs x 32 rounded up), from each of the
//                  4 sub-partitions separately; a block whose warps (rounded up to a multiple of 4) would
//                  need more than regsPerBlock cannot launch at all;
//   shared memory  static + dynamic + the driver's reserved 1 KiB per block, rounded up to 128 bytes, out of
//                  the carveout the kernel asks for (the whole sharedMemPerMultiprocessor by default; a
//                  preferred carveout rounds up to the next configuration the chip has).
// model_occupancy() reports every limit and which one binds; grid barriers size and check their grids from
// it. tests/cuda_native/device/occupancy_test.cu compares it with cudaOccupancyMaxActiveBlocksPerMultiprocessor
// on the GPU. Not modelled: named-barrier limits (kernels with several `bar.sync` ids) and partitioned
// global caching, neither of which ksync's kernels use.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace ksync::cuda {

enum class occupancy_limit { blocks, warps, registers, shared_memory, block_size };

[[nodiscard]] const char* to_string(occupancy_limit limit) noexcept;

struct occupancy_report {
  int blocks_per_multiprocessor = 0;                  // the smallest limit below
  occupancy_limit binding = occupancy_limit::blocks;  // the limit that gives it (the first, on a tie)
  int by_blocks = 0;
  int by_warps = 0;
  int by_registers = 0;
  int by_shared_memory = 0;
  int warps_per_block = 0;
  int registers_per_warp = 0;                        // allocated: numRegs x 32 rounded up to 256
  std::size_t shared_memory_per_block = 0;           // allocated: static + dynamic + reserved, rounded up
  std::size_t shared_memory_per_multiprocessor = 0;  // the carveout the limit above divides
  double occupancy = 0;                              // resident warps / warp slots of a multiprocessor
};

// The model for a kernel with `attributes` on a device with `properties`, launched with `block_size` threads
// and `dynamic_shared_bytes` of dynamic shared memory. Throws std::invalid_argument for block_size < 1 and
// for compute capabilities before 7.0 (their rules differ and ksync does not build for them).
[[nodiscard]] occupancy_report model_occupancy(const cudaDeviceProp& properties, const cudaFuncAttributes& attributes,
                                               int block_size, std::size_t dynamic_shared_bytes);

// The model for `kernel` on `device`: reads its attributes and the device's properties (cached per device).
template <class Kernel>
[[nodiscard]] occupancy_report model_occupancy(Kernel kernel, int block_size, std::size_t dynamic_shared_bytes,
                                               int device);

namespace detail {
[[nodiscard]] const cudaDeviceProp& device_properties(int device);
[[nodiscard]] cudaFuncAttributes function_attributes(const void* kernel);
}  // namespace detail

template <class Kernel>
occupancy_report model_occupancy(Kernel kernel, int block_size, std::size_t dynamic_shared_bytes, int device) {
  return model_occupancy(detail::device_properties(device),
                         detail::function_attributes(reinterpret_cast<const void*>(kernel)), block_size,
                         dynamic_shared_bytes);
}

}  // namespace ksync::cuda
