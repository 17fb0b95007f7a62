// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::parallel_reduce (a native reduce_strategy) to ksync::cuda::parallel_reduce
// (ksync/cuda/device/parallel_reduce.cuh), in the shape of every bridge file (native_bridge.hpp): int32,
// int64, float and double results; the user functor becomes the native kernel, so only in translation units
// compiled as CUDA.
#pragma once

#include <ksync/detail/native_bridge.hpp>
#include <ksync/types.hpp>

#include <type_traits>
#if KSYNC_NATIVE_BRIDGE && defined(__CUDACC__)
#include <ksync/cuda/device/parallel_reduce.cuh>

namespace ksync::detail {

template <class T>
struct twin_of<"ksync::parallel_reduce", Kokkos::Cuda, T> : twin_for_value_types<T> {};

// Into a rank-0 View: asynchronous; into a host scalar: blocking, through the mailbox. The operator comes as
// a compile-time value (parallel_reduce knows it from the result's kind), so that only its kernels are built:
// ksync::cuda::parallel_reduce's run-time reduce_op would instantiate every strategy for all three.
template <class Index, class F, reduce_op Op, class Target>
void twin(operation<"ksync::parallel_reduce"> /*tag*/, const Kokkos::Cuda& exec, Index n, const F& f,
          std::integral_constant<reduce_op, Op> /*op*/, reduce_strategy strategy, Target& target) {
  namespace native_half = ksync::cuda::detail;
  const ksync::cuda::reduce_tuning tuning{};
  if constexpr (Kokkos::is_view_v<Target>) {
    using T = typename Target::non_const_value_type;
    native_half::check_parallel_reduce_arguments<T, Index, F>(n, target.data(), strategy, tuning);
    native_half::run_parallel_reduce(exec.cuda_stream(), n, f, target.data(), strategy, operator_of<Op>{}, tuning);
  } else {
    native_half::check_parallel_reduce_arguments<Target, Index, F>(n, &target, strategy, tuning);
    native_half::run_parallel_reduce(exec.cuda_stream(), n, f, target, strategy, operator_of<Op>{}, tuning);
  }
}

}  // namespace ksync::detail
#endif
