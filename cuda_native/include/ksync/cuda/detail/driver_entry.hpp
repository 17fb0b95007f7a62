// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A driver function reached through the runtime that already loaded the driver (cudaGetDriverEntryPointByVersion),
// so ksync::cuda links no libcuda: the stream memory operations (cuStreamWriteValue32, cuStreamWaitValue32) that
// the mailbox and the host gate enqueue. Null where the driver does not offer it; the caller then takes its other way.
#pragma once

#include <cuda_runtime_api.h>

namespace ksync::cuda::detail {

// `name`'s entry point as a pointer of type Function (the driver API's own signature), as of CUDA 12.0's ABI.
template <class Function>
[[nodiscard]] Function driver_entry(const char* name) noexcept {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(name, &address, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<Function>(address);
}

}  // namespace ksync::cuda::detail
