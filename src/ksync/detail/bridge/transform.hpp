// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::transform (strategy native) to ksync::cuda::transform (ksync/cuda/device/transform.cuh),
// in the shape of every bridge file (native_bridge.hpp): a generic overload, never reached, and one for
// Kokkos::Cuda in translation units compiled as CUDA (the user functor becomes the native kernel there).
#pragma once

#include <ksync/detail/native_bridge.hpp>
#if KSYNC_NATIVE_BRIDGE && defined(__CUDACC__)
#include <ksync/cuda/device/transform.cuh>
#endif

namespace ksync::detail {

template <class ExecutionSpace, class... Arguments>
void native_transform(const ExecutionSpace& /*exec*/, const Arguments&... /*arguments*/) {
  unreachable_bridge("ksync::transform");
}

#if KSYNC_NATIVE_BRIDGE && defined(__CUDACC__)
template <class InView, class OutView, class F>
void native_transform(const Kokkos::Cuda& exec, const InView& in, const OutView& out, const F& f) {
  ksync::cuda::transform(exec.cuda_stream(), in.data(), in.extent(0), out.data(), f);
}
#endif

}  // namespace ksync::detail
