// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Grids whose blocks wait for each other (grid.sync(), the spin barriers of grid/barrier.cuh): every block
// must be resident at once, or the first barrier waits forever for a block that cannot start (blocks of an
// ordinary launch cannot wait for each other; docs/glossary.md).
//   co_resident_grid()   sizes such a grid from the occupancy API: blocks_per_multiprocessor per
//                        multiprocessor (0: as many as fit), refused with std::invalid_argument when the
//                        kernel cannot have that many resident;
//   check_co_resident()  refuses a grid the device cannot hold at once (any launcher of a grid barrier);
//   launch_cooperative() checks both, and cooperative-launch support, then cudaLaunchCooperativeKernel;
//   resident_blocks_of() how many blocks of a kernel fit on one multiprocessor (what the first two ask).
// The loop every thread of such a grid runs over data larger than it is in grid/stride.cuh.
#pragma once

#include <ksync/cuda/error.hpp>
#include <ksync/cuda/runtime.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <tuple>

namespace ksync::cuda {

struct grid_shape {
  unsigned int blocks = 0;
  int block_size = 0;
  std::size_t dynamic_shared_bytes = 0;
  int blocks_per_multiprocessor = 0;  // as launched
};

// How many blocks of `block_size` threads of `kernel` with `dynamic_shared_bytes` fit on one multiprocessor of
// the current device at once (the occupancy API; 0 where none does).
template <class Kernel>
[[nodiscard]] int resident_blocks_of(Kernel kernel, int block_size, std::size_t dynamic_shared_bytes) {
  int fit = 0;
  KSYNC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, block_size, dynamic_shared_bytes));
  return fit;
}

// Throws std::invalid_argument when `blocks` blocks of `block_size` threads of `kernel` with
// `dynamic_shared_bytes` cannot all be resident on `device` at once: a grid barrier in them could never
// release. `where` names the caller in the message.
template <class Kernel>
void check_co_resident(const char* where, Kernel kernel, unsigned int blocks, int block_size,
                       std::size_t dynamic_shared_bytes, int device) {
  const int per_multiprocessor = resident_blocks_of(kernel, block_size, dynamic_shared_bytes);
  const int multiprocessors = multiprocessor_count(device);
  const auto capacity = static_cast<unsigned long long>(per_multiprocessor) * multiprocessors;
  detail::check_argument(
      blocks <= capacity, where, "blocks = ", blocks, " cannot be resident at once: ", per_multiprocessor,
      " blocks of ", block_size, " threads and ", dynamic_shared_bytes,
      " bytes of dynamic shared memory fit per multiprocessor, ", capacity, " on the ", multiprocessors,
      " multiprocessors of device ", device, "; a grid barrier would wait forever for the rest");
}

// A grid of `blocks_per_multiprocessor` blocks per multiprocessor of `device` (0: as many as fit), all of
// them resident at once.
template <class Kernel>
grid_shape co_resident_grid(const char* where, Kernel kernel, int block_size, std::size_t dynamic_shared_bytes,
                            int blocks_per_multiprocessor, int device) {
  detail::check_argument(block_size >= 1 && block_size <= 1024, where, "block_size = ", block_size,
                         " is outside [1, 1024]");
  detail::check_argument(blocks_per_multiprocessor >= 0, where,
                         "blocks_per_multiprocessor = ", blocks_per_multiprocessor, " is negative");
  const int fit = resident_blocks_of(kernel, block_size, dynamic_shared_bytes);
  detail::check_argument(fit > 0, where, "block_size = ", block_size, " with ", dynamic_shared_bytes,
                         " bytes of dynamic shared memory: no block of this kernel fits on a multiprocessor");
  detail::check_argument(blocks_per_multiprocessor <= fit, where,
                         "blocks_per_multiprocessor = ", blocks_per_multiprocessor, " but only ", fit, " blocks of ",
                         block_size, " threads of this kernel can be resident on one multiprocessor of device ",
                         device);
  const int per_multiprocessor = blocks_per_multiprocessor > 0 ? blocks_per_multiprocessor : fit;
  return {.blocks = static_cast<unsigned int>(per_multiprocessor * multiprocessor_count(device)),
          .block_size = block_size,
          .dynamic_shared_bytes = dynamic_shared_bytes,
          .blocks_per_multiprocessor = per_multiprocessor};
}

namespace detail {
// cudaLaunchCooperativeKernel of `kernel(arguments...)` with `grid` on `stream`, each argument converted to
// the kernel's own parameter type (the launch copies each from its address). The caller has checked
// cooperative-launch support and co-residency: launch_cooperative below, or a launcher that sized its grid
// from an occupancy it already holds (the grid_sync reduction, which would otherwise ask again per call).
template <class... Parameters, class... Arguments>
void cooperative_launch(void (*kernel)(Parameters...), const grid_shape& grid, cudaStream_t stream,
                        Arguments... arguments) {
  static_assert(sizeof...(Parameters) == sizeof...(Arguments),
                "launch_cooperative: pass exactly one argument per kernel parameter");
  std::tuple<Parameters...> values{static_cast<Parameters>(arguments)...};
  void* addresses[sizeof...(Parameters) > 0 ? sizeof...(Parameters) : 1] = {};
  std::apply(
      [&](auto&... value) {
        std::size_t k = 0;
        ((addresses[k++] = static_cast<void*>(&value)), ...);
      },
      values);
  KSYNC_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(grid.blocks),
                                               dim3(static_cast<unsigned int>(grid.block_size)), addresses,
                                               grid.dynamic_shared_bytes, stream));
}

// Throws std::invalid_argument unless `device` supports cooperative launch (grid.sync()).
inline void check_cooperative_launch(const char* where, int device) {
  int cooperative = 0;
  KSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  check_argument(cooperative != 0, where, "cooperative launch (grid.sync()) is not supported by device ", device);
}
}  // namespace detail

// Launches `kernel(arguments...)` cooperatively (grid.sync() is legal in it) with `grid` on `stream`, after
// checking that the device supports cooperative launch and that the grid is co-resident.
template <class... Parameters, class... Arguments>
void launch_cooperative(const char* where, void (*kernel)(Parameters...), const grid_shape& grid, cudaStream_t stream,
                        Arguments... arguments) {
  const int device = stream_device(stream);
  detail::check_cooperative_launch(where, device);
  check_co_resident(where, kernel, grid.blocks, grid.block_size, grid.dynamic_shared_bytes, device);
  detail::cooperative_launch(kernel, grid, stream, arguments...);
}

}  // namespace ksync::cuda
