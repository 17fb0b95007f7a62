// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// How errors leave ksync::cuda: a failed CUDA call throws ksync::cuda::cuda_error, whose message names the
// call, the CUDA error and the file:line; a bad argument throws std::invalid_argument naming the argument
// and its value (see check_argument).
//
// For tests, fail_cuda_call_after(k) makes the k-th checked CUDA call from now fail: a fault in the middle
// of a pipeline or a solve, at every call it makes, without breaking the GPU's context.
#pragma once

#include <ksync/detail/arguments.hpp>
#include <ksync/detail/check_call.hpp>

#include <cuda_runtime_api.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace ksync::cuda {

class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
  [[nodiscard]] cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

// For tests: the `nth` CUDA call from now that ksync::cuda checks (KSYNC_CUDA_CHECK or a launch check; 1:
// the next) reports cudaErrorLaunchFailure, as a faulted kernel would, instead of being made (a launch check
// reports it after the launch). 0 cancels. One process-wide countdown; every thread's checks count.
void fail_cuda_call_after(int nth) noexcept;

namespace detail {

// Whether the injected failure is due at this check (each check counts the countdown down once).
[[nodiscard]] bool injected_cuda_failure_due() noexcept;
inline constexpr cudaError_t injected_cuda_error = cudaErrorLaunchFailure;

[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::ostringstream message;
  message << call << " failed: " << cudaGetErrorName(code) << " (" << cudaGetErrorString(code) << ") at " << file << ':'
          << line;
  throw cuda_error(code, message.str());
}

// After a kernel launch: throws ksync::cuda::cuda_error naming the kernel when the launch failed.
inline void check_launch(const char* kernel, const char* file, int line) {
  const cudaError_t status = injected_cuda_failure_due() ? injected_cuda_error : cudaGetLastError();
  if (status != cudaSuccess) throw_cuda_error(status, kernel, file, line);
}

using ksync::detail::check_argument;  // one argument check for both halves (ksync/detail/arguments.hpp)

}  // namespace detail
}  // namespace ksync::cuda

// Checks a CUDA runtime call; on failure throws ksync::cuda::cuda_error with the call text and file:line.
#define KSYNC_CUDA_CHECK(call)                                                                                         \
  KSYNC_DETAIL_CHECK_STATUS(                                                                                           \
      ::ksync::cuda::detail::injected_cuda_failure_due() ? ::ksync::cuda::detail::injected_cuda_error : (call), #call, \
      cudaSuccess, ::ksync::cuda::detail::throw_cuda_error)

// Checks the launch just made; `kernel` names it in the message.
#define KSYNC_CUDA_CHECK_LAUNCH(kernel) ::ksync::cuda::detail::check_launch(kernel, __FILE__, __LINE__)
