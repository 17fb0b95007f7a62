// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::reverse_in_block and ksync::reverse (implementation::native) to their twins
// ksync::cuda::reverse_in_block and ksync::cuda::reverse (ksync/cuda/device/reverse_in_block.hpp,
// reverse.hpp; the portable tile is the native block size), in the shape of every bridge file
// (native_bridge.hpp): int32, int64, float and double elements.
#pragma once

#include <ksync/detail/native_bridge.hpp>
#if KSYNC_NATIVE_BRIDGE
#include <ksync/cuda/device/reverse.hpp>
#include <ksync/cuda/device/reverse_in_block.hpp>

namespace ksync::detail {

template <class T>
struct twin_of<"ksync::reverse", Kokkos::Cuda, T> : twin_for_value_types<T> {};
template <class T>
struct twin_of<"ksync::reverse_in_block", Kokkos::Cuda, T> : twin_for_value_types<T> {};

template <class InView, class OutView>
void twin(operation<"ksync::reverse_in_block"> /*tag*/, const Kokkos::Cuda& exec, const InView& in,
          const OutView& out) {
  ksync::cuda::reverse_in_block(exec.cuda_stream(), in.data(), out.data(), in.extent(0));
}

// Out of place (two Views and a tile), then in place (one View and a tile).
template <class InView, class OutView>
  requires Kokkos::is_view_v<OutView>
void twin(operation<"ksync::reverse"> /*tag*/, const Kokkos::Cuda& exec, const InView& in, const OutView& out,
          int tile) {
  ksync::cuda::reverse(exec.cuda_stream(), in.data(), out.data(), in.extent(0), tile);
}

template <class DataView>
void twin(operation<"ksync::reverse"> /*tag*/, const Kokkos::Cuda& exec, const DataView& data, int tile) {
  ksync::cuda::reverse(exec.cuda_stream(), data.data(), data.extent(0), tile);
}

}  // namespace ksync::detail
#endif
