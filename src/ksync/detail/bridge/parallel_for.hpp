// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::parallel_for (the native index strategies) to ksync::cuda::parallel_for
// (ksync/cuda/device/parallel_for.cuh), in the shape of every bridge file (native_bridge.hpp); the user
// functor becomes the native kernel, so only in translation units compiled as CUDA.
#pragma once

#include <ksync/detail/native_bridge.hpp>
#if KSYNC_NATIVE_BRIDGE && defined(__CUDACC__)
#include <ksync/cuda/device/parallel_for.cuh>

namespace ksync::detail {

template <class Index>
struct twin_of<"ksync::parallel_for", Kokkos::Cuda, Index> : twin_for_any_element {};

template <class Index, class F>
void twin(operation<"ksync::parallel_for"> /*tag*/, const Kokkos::Cuda& exec, Index n, const F& f,
          index_strategy strategy) {
  ksync::cuda::parallel_for(exec.cuda_stream(), n, f, strategy);
}

}  // namespace ksync::detail
#endif
