// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::reduce, dot and transform_reduce to their native twins (ksync/cuda/device/reduce.hpp,
// reduce.cuh), in the shape every bridge file has (native_bridge.hpp): a generic overload for every
// execution space, never reached because the caller checked reachability first, and one for Kokkos::Cuda,
// present when this ksync has its native half, that runs ksync::cuda on exec's stream.
#pragma once

#include <ksync/detail/native_bridge.hpp>
#if KSYNC_NATIVE_BRIDGE
#include <ksync/cuda/device/reduce.hpp>
#if defined(__CUDACC__)
#include <ksync/cuda/device/reduce.cuh>
#endif
#endif
#include <ksync/types.hpp>

#include <cstddef>

namespace ksync::detail {

template <class ExecutionSpace, class... Arguments>
void native_reduce(const ExecutionSpace& /*exec*/, const Arguments&... /*arguments*/) {
  unreachable_bridge("ksync::reduce");
}
template <class ExecutionSpace, class... Arguments>
void native_dot(const ExecutionSpace& /*exec*/, const Arguments&... /*arguments*/) {
  unreachable_bridge("ksync::dot");
}
template <class ExecutionSpace, class... Arguments>
void native_transform_reduce(const ExecutionSpace& /*exec*/, const Arguments&... /*arguments*/) {
  unreachable_bridge("ksync::transform_reduce");
}

// The Kokkos::Cuda overloads take what the callers pass, by const reference (the result by reference), so
// that no argument converts: a conversion would rank the generic overload above them.
#if KSYNC_NATIVE_BRIDGE
template <class DataView, class Result>
  requires ksync::cuda::is_value_type_v<typename DataView::non_const_value_type>
void native_reduce(const Kokkos::Cuda& exec, const DataView& data, const reduce_op& op, const reduce_strategy& strategy,
                   Result& result) {
  using T = typename DataView::non_const_value_type;
  const cudaStream_t stream = exec.cuda_stream();
  into_result<T>(stream, strategy, result,
                 [&](T* target) { ksync::cuda::reduce(stream, data.data(), data.extent(0), op, strategy, target); });
}

template <class XView, class YView, class Result>
  requires ksync::cuda::is_value_type_v<typename XView::non_const_value_type>
void native_dot(const Kokkos::Cuda& exec, const XView& x, const YView& y, const reduce_strategy& strategy,
                Result& result) {
  using T = typename XView::non_const_value_type;
  const cudaStream_t stream = exec.cuda_stream();
  into_result<T>(stream, strategy, result,
                 [&](T* target) { ksync::cuda::dot(stream, x.data(), y.data(), x.extent(0), strategy, target); });
}
#endif

// A user functor becomes a native kernel only in a translation unit compiled as CUDA.
#if KSYNC_NATIVE_BRIDGE && defined(__CUDACC__)
template <class DataView, class Transform, class Result>
  requires ksync::cuda::is_value_type_v<typename DataView::non_const_value_type>
void native_transform_reduce(const Kokkos::Cuda& exec, const DataView& data, const reduce_op& op, const Transform& f,
                             const reduce_strategy& strategy, Result& result) {
  using T = typename DataView::non_const_value_type;
  const cudaStream_t stream = exec.cuda_stream();
  into_result<T>(stream, strategy, result, [&](T* target) {
    ksync::cuda::transform_reduce(stream, data.data(), data.extent(0), op, f, strategy, target);
  });
}
#endif

}  // namespace ksync::detail
