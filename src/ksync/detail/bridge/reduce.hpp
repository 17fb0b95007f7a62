// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::reduce, dot and transform_reduce to their native twins (ksync/cuda/device/reduce.hpp,
// reduce.cuh): into a rank-0 View asynchronously, into a host scalar through their blocking forms, in the shape of
// every bridge file (native_bridge.hpp): int32, int64, float and double elements.
#pragma once

#include <ksync/detail/native_bridge.hpp>
#include <ksync/types.hpp>
#if KSYNC_NATIVE_BRIDGE
#include <ksync/cuda/device/reduce.hpp>
#if defined(__CUDACC__)
#include <ksync/cuda/device/reduce.cuh>
#endif

namespace ksync::detail {

template <class T>
struct twin_of<"ksync::reduce", Kokkos::Cuda, T> : twin_for_value_types<T> {};
template <class T>
struct twin_of<"ksync::dot", Kokkos::Cuda, T> : twin_for_value_types<T> {};

template <class DataView, class Result>
void twin(operation<"ksync::reduce"> /*tag*/, const Kokkos::Cuda& exec, const DataView& data, reduce_op op,
          reduce_strategy strategy, Result& result) {
  if constexpr (Kokkos::is_view_v<Result>) {
    ksync::cuda::reduce(exec.cuda_stream(), data.data(), data.extent(0), op, strategy, result.data());
  } else {
    result = ksync::cuda::reduce(exec.cuda_stream(), data.data(), data.extent(0), op, strategy);
  }
}

template <class XView, class YView, class Result>
void twin(operation<"ksync::dot"> /*tag*/, const Kokkos::Cuda& exec, const XView& x, const YView& y,
          reduce_strategy strategy, Result& result) {
  if constexpr (Kokkos::is_view_v<Result>) {
    ksync::cuda::dot(exec.cuda_stream(), x.data(), y.data(), x.extent(0), strategy, result.data());
  } else {
    result = ksync::cuda::dot(exec.cuda_stream(), x.data(), y.data(), x.extent(0), strategy);
  }
}

// A user functor becomes a native kernel only in a translation unit compiled as CUDA.
#if defined(__CUDACC__)
template <class T>
struct twin_of<"ksync::transform_reduce", Kokkos::Cuda, T> : twin_for_value_types<T> {};

template <class DataView, class Transform, class Result>
void twin(operation<"ksync::transform_reduce"> /*tag*/, const Kokkos::Cuda& exec, const DataView& data, reduce_op op,
          const Transform& f, reduce_strategy strategy, Result& result) {
  if constexpr (Kokkos::is_view_v<Result>) {
    ksync::cuda::transform_reduce(exec.cuda_stream(), data.data(), data.extent(0), op, f, strategy, result.data());
  } else {
    result = ksync::cuda::transform_reduce(exec.cuda_stream(), data.data(), data.extent(0), op, f, strategy);
  }
}
#endif

}  // namespace ksync::detail
#endif
