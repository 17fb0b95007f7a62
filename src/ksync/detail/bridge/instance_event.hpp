// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge to ksync::cuda::event (ksync/cuda/stream.hpp) for two Kokkos::Cuda instances: order(earlier, later)
// makes the work enqueued on `later` from now on wait, on the GPU, for the work enqueued so far on `earlier` (an
// event recorded on one stream and waited for by the other), where this ksync has its native half. Kokkos 4 and 5
// have no such call between instances; elsewhere order() returns false and the caller fences `earlier`, which
// also waits but on the host, and leaves the GPU idle until the host enqueues the next work.
#pragma once

#include <ksync/backend.hpp>

#include <Kokkos_Core.hpp>

#if KSYNC_NATIVE_BRIDGE
#include <ksync/cuda/runtime.hpp>
#include <ksync/cuda/stream.hpp>

#include <cuda_runtime_api.h>

#include <memory>
#include <type_traits>
#endif

namespace ksync::detail {

class instance_event {
 public:
  template <class ExecutionSpace>
  [[nodiscard]] bool order([[maybe_unused]] const ExecutionSpace& earlier,
                           [[maybe_unused]] const ExecutionSpace& later) {
#if KSYNC_NATIVE_BRIDGE
    if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
      // An event is recorded on a stream of its own device: made there, and again where `earlier` is on another.
      if (!event_ || device_ != earlier.cuda_device()) {
        const ksync::cuda::device_guard on(earlier.cuda_device());
        event_ = std::make_shared<ksync::cuda::event>(cudaEventDisableTiming);
        device_ = earlier.cuda_device();
      }
      event_->record(earlier.cuda_stream());
      event_->make_wait(later.cuda_stream());
      return true;
    }
#endif
    return false;
  }

 private:
#if KSYNC_NATIVE_BRIDGE
  std::shared_ptr<ksync::cuda::event> event_;  // made on the first order(); shared by copies of its owner
  int device_ = -1;                            // the device event_ was made on
#endif
};

}  // namespace ksync::detail
