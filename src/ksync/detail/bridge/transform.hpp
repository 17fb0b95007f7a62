// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::transform (strategy native) to ksync::cuda::transform (ksync/cuda/device/transform.cuh),
// in the shape of every bridge file (native_bridge.hpp); the user functor becomes the native kernel, so only
// in translation units compiled as CUDA.
#pragma once

#include <ksync/detail/native_bridge.hpp>
#if KSYNC_NATIVE_BRIDGE && defined(__CUDACC__)
#include <ksync/cuda/device/transform.cuh>

namespace ksync::detail {

template <class T>
struct twin_of<"ksync::transform", Kokkos::Cuda, T> : twin_for_any_element {};

template <class InView, class OutView, class F>
void twin(operation<"ksync::transform"> /*tag*/, const Kokkos::Cuda& exec, const InView& in, const OutView& out,
          const F& f) {
  ksync::cuda::transform(exec.cuda_stream(), in.data(), in.extent(0), out.data(), f);
}

}  // namespace ksync::detail
#endif
