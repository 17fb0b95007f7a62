// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The injected CUDA failures of tests (ksync/cuda/error.hpp).
#include "detail/fault_countdown.hpp"

#include <ksync/cuda/error.hpp>

namespace ksync::cuda {
namespace {
detail::fault_countdown cuda_call_failure;
}  // namespace

void fail_cuda_call_after(int nth) noexcept {
  cuda_call_failure.arm(nth);
}

bool detail::injected_cuda_failure_due() noexcept {
  return cuda_call_failure.due();
}

}  // namespace ksync::cuda
