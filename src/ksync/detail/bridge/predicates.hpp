// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::segment_predicates (implementation::native) to ksync::cuda::segment_predicates
// (ksync/cuda/device/predicates.hpp: the __syncthreads_count / _and / _or barriers), in the shape of every
// bridge file (native_bridge.hpp).
#pragma once

#include <ksync/detail/native_bridge.hpp>
#if KSYNC_NATIVE_BRIDGE
#include <ksync/cuda/device/predicates.hpp>

namespace ksync::detail {

template <class T>
struct twin_of<"ksync::segment_predicates", Kokkos::Cuda, T> : twin_for_any_element {};

template <class FlagView, class OutView>
void twin(operation<"ksync::segment_predicates"> /*tag*/, const Kokkos::Cuda& exec, const FlagView& flags,
          int segment_size, const OutView& out) {
  ksync::cuda::segment_predicates(exec.cuda_stream(), flags.data(), flags.extent(0), segment_size, out.data());
}

}  // namespace ksync::detail
#endif
