// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::reduce, dot and transform_reduce to their native twins (ksync/cuda/device/reduce.hpp,
// reduce.cuh), in the shape of every bridge file (native_bridge.hpp). Element types ksync::cuda does not
// compile meet the generic overload, which the callers' checks never let them reach.
#pragma once

#include <ksync/detail/native_bridge.hpp>
#include <ksync/types.hpp>
#if KSYNC_NATIVE_BRIDGE
#include <ksync/cuda/device/reduce.hpp>
#if defined(__CUDACC__)
#include <ksync/cuda/device/reduce.cuh>
#endif

namespace ksync::detail {

template <class DataView, class Result>
  requires ksync::cuda::is_value_type_v<typename DataView::non_const_value_type>
void native(operation<"ksync::reduce"> /*tag*/, const Kokkos::Cuda& exec, const DataView& data, const reduce_op& op,
            const reduce_strategy& strategy, Result& result) {
  using T = typename DataView::non_const_value_type;
  const cudaStream_t stream = exec.cuda_stream();
  into_result<T>(stream, strategy, result,
                 [&](T* target) { ksync::cuda::reduce(stream, data.data(), data.extent(0), op, strategy, target); });
}

template <class XView, class YView, class Result>
  requires ksync::cuda::is_value_type_v<typename XView::non_const_value_type>
void native(operation<"ksync::dot"> /*tag*/, const Kokkos::Cuda& exec, const XView& x, const YView& y,
            const reduce_strategy& strategy, Result& result) {
  using T = typename XView::non_const_value_type;
  into_result<T>(exec.cuda_stream(), strategy, result, [&](T* target) {
    ksync::cuda::dot(exec.cuda_stream(), x.data(), y.data(), x.extent(0), strategy, target);
  });
}

// A user functor becomes a native kernel only in a translation unit compiled as CUDA.
#if defined(__CUDACC__)
template <class DataView, class Transform, class Result>
  requires ksync::cuda::is_value_type_v<typename DataView::non_const_value_type>
void native(operation<"ksync::transform_reduce"> /*tag*/, const Kokkos::Cuda& exec, const DataView& data,
            const reduce_op& op, const Transform& f, const reduce_strategy& strategy, Result& result) {
  using T = typename DataView::non_const_value_type;
  const cudaStream_t stream = exec.cuda_stream();
  into_result<T>(stream, strategy, result, [&](T* target) {
    ksync::cuda::transform_reduce(stream, data.data(), data.extent(0), op, f, strategy, target);
  });
}
#endif

}  // namespace ksync::detail
#endif
