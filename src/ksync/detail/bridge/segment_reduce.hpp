// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::segment_reduce (forms tree and shuffle) to ksync::cuda::segment_reduce
// (ksync/cuda/device/segment_reduce.hpp), in the shape of every bridge file (native_bridge.hpp).
#pragma once

#include <ksync/detail/native_bridge.hpp>
#if KSYNC_NATIVE_BRIDGE
#include <ksync/cuda/device/segment_reduce.hpp>

namespace ksync::detail {

// Element types ksync::cuda does not compile have no twin: check_native_reachable refuses them with a message.
template <class T>
struct twin_of<"ksync::segment_reduce", Kokkos::Cuda, T> : twin_for_value_types<T> {};

template <class DataView, class OutView>
void twin(operation<"ksync::segment_reduce"> /*tag*/, const Kokkos::Cuda& exec, const DataView& data, int segment_size,
          reduce_op op, segment_form form, const OutView& out) {
  ksync::cuda::segment_reduce(exec.cuda_stream(), data.data(), data.extent(0), segment_size, op, form, out.data());
}

}  // namespace ksync::detail
#endif
