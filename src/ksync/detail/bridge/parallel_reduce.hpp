// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::parallel_reduce (a native reduce_strategy) to ksync::cuda::parallel_reduce
// (ksync/cuda/device/parallel_reduce.cuh), in the shape of every bridge file (native_bridge.hpp): int32,
// int64, float and double results; the user functor becomes the native kernel, so only in translation units
// compiled as CUDA.
#pragma once

#include <ksync/detail/native_bridge.hpp>
#include <ksync/types.hpp>
#if KSYNC_NATIVE_BRIDGE && defined(__CUDACC__)
#include <ksync/cuda/device/parallel_reduce.cuh>

namespace ksync::detail {

template <class T>
struct twin_of<"ksync::parallel_reduce", Kokkos::Cuda, T> : twin_for_value_types<T> {};

// Into a rank-0 View: asynchronous; into a host scalar: blocking, through the mailbox.
template <class Index, class F, class Target>
void twin(operation<"ksync::parallel_reduce"> /*tag*/, const Kokkos::Cuda& exec, Index n, const F& f, reduce_op op,
          reduce_strategy strategy, Target& target) {
  if constexpr (Kokkos::is_view_v<Target>) {
    ksync::cuda::parallel_reduce(exec.cuda_stream(), n, f, target.data(), strategy, op);
  } else {
    ksync::cuda::parallel_reduce(exec.cuda_stream(), n, f, target, strategy, op);
  }
}

}  // namespace ksync::detail
#endif
