// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Whether a pointer a caller hands over is device memory of the device the work runs on: the check behind the
// native operations that take raw pointers (ksync::cuda::cg, ksync::cuda::mpi::spmv and cg), so that host
// memory is refused with its name instead of faulting in a kernel. Private to the native half.
#pragma once

#include <ksync/cuda/error.hpp>
#include <ksync/detail/arguments.hpp>

#include <cuda_runtime_api.h>

namespace ksync::cuda::detail {

inline const char* memory_type_name(cudaMemoryType type) {
  switch (type) {
    case cudaMemoryTypeUnregistered:
      return "host memory unknown to CUDA";
    case cudaMemoryTypeHost:
      return "pinned host memory";
    case cudaMemoryTypeDevice:
      return "device memory";
    case cudaMemoryTypeManaged:
      return "managed memory";
  }
  return "memory of an unknown kind";
}

// Throws std::invalid_argument naming `where`, the argument and the memory it is, unless `pointer` is device
// memory of `device` or managed memory. `use` says what the operation does with it ("the solver reads b and
// writes x").
inline void check_device_memory(const char* where, const char* name, const void* pointer, int device, const char* use) {
  cudaPointerAttributes attributes{};
  const cudaError_t status = cudaPointerGetAttributes(&attributes, pointer);
  if (status != cudaSuccess) (void)cudaGetLastError();  // not left for the next launch's check to report as its own
  KSYNC_CUDA_CHECK(status);
  const bool usable = attributes.type == cudaMemoryTypeManaged ||
                      (attributes.type == cudaMemoryTypeDevice && attributes.device == device);
  ksync::detail::check_argument(usable, where, name, " = ", pointer, " is ", memory_type_name(attributes.type),
                                " (device ", attributes.device, "); ", use, " in device memory of device ", device);
}

}  // namespace ksync::cuda::detail
