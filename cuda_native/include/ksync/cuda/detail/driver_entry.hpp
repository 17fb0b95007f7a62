// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A driver function reached through the runtime that already loaded the driver (cudaGetDriverEntryPointByVersion),
// so ksync::cuda links no libcuda: the stream memory operations (cuStreamWriteValue32, cuStreamWaitValue32) that
// the mailbox, the host gate and the peer halo enqueue, and the name of a driver error. Null where the driver does not
// offer it; the caller then takes its other way, or refuses.
#pragma once

#include <cuda.h>  // the driver's types only: no libcuda link
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

// cuStreamWaitValue32 and cuStreamWriteValue32 (the same signature), looked up once.
using stream_value_function = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
[[nodiscard]] inline stream_value_function stream_wait_value32() noexcept {
  static const auto function = driver_entry<stream_value_function>("cuStreamWaitValue32");
  return function;
}
[[nodiscard]] inline stream_value_function stream_write_value32() noexcept {
  static const auto function = driver_entry<stream_value_function>("cuStreamWriteValue32");
  return function;
}

// The driver's name of `status` ("CUDA_ERROR_INVALID_VALUE"), or "an unnamed CUresult" where the driver has none.
[[nodiscard]] inline const char* driver_error_name(CUresult status) noexcept {
  using name_function = CUresult (*)(CUresult, const char**);
  static const auto function = driver_entry<name_function>("cuGetErrorName");
  const char* name = nullptr;
  if (function == nullptr || function(status, &name) != CUDA_SUCCESS || name == nullptr) return "an unnamed CUresult";
  return name;
}

}  // namespace ksync::cuda::detail
