// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::reverse_in_block and ksync::reverse (implementation::native) to their twins
// ksync::cuda::reverse_in_block and ksync::cuda::reverse (ksync/cuda/device/reverse_in_block.hpp,
// reverse.hpp; the portable tile is the native block size), in the shape of every bridge file
// (native_bridge.hpp). Element types ksync::cuda does not compile meet the generic overload, which the
// callers' checks never let them reach.
#pragma once

#include <ksync/detail/native_bridge.hpp>
#if KSYNC_NATIVE_BRIDGE
#include <ksync/cuda/device/reverse.hpp>
#include <ksync/cuda/device/reverse_in_block.hpp>

namespace ksync::detail {

template <class T>
concept native_element = ksync::cuda::is_value_type_v<T>;

template <class InView, class OutView>
  requires native_element<typename OutView::value_type>
void native(operation<"ksync::reverse_in_block"> /*tag*/, const Kokkos::Cuda& exec, const InView& in,
            const OutView& out) {
  ksync::cuda::reverse_in_block(exec.cuda_stream(), in.data(), out.data(), in.extent(0));
}

// Out of place (two Views and a tile), then in place (one View and a tile).
template <class InView, class OutView>
  requires Kokkos::is_view_v<OutView> && native_element<typename OutView::value_type>
void native(operation<"ksync::reverse"> /*tag*/, const Kokkos::Cuda& exec, const InView& in, const OutView& out,
            const int& tile) {
  ksync::cuda::reverse(exec.cuda_stream(), in.data(), out.data(), in.extent(0), tile);
}

template <class DataView>
  requires native_element<typename DataView::value_type>
void native(operation<"ksync::reverse"> /*tag*/, const Kokkos::Cuda& exec, const DataView& data, const int& tile) {
  ksync::cuda::reverse(exec.cuda_stream(), data.data(), data.extent(0), tile);
}

}  // namespace ksync::detail
#endif
