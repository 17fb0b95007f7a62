// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The countdown behind the injected failures of tests (fail_allocation_after, fail_cuda_call_after): armed
// with k, the k-th call of due() from then on returns true, once. Private to cuda_native/src.
#pragma once

#include <atomic>

namespace ksync::cuda::detail {

class fault_countdown {
 public:
  void arm(int nth) noexcept { left_.store(nth > 0 ? nth : 0, std::memory_order_relaxed); }
  [[nodiscard]] bool due() noexcept {
    int left = left_.load(std::memory_order_relaxed);
    while (left > 0) {
      if (left_.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) return left == 1;
    }
    return false;
  }

 private:
  std::atomic<int> left_{0};
};

}  // namespace ksync::cuda::detail
