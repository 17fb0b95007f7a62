// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::cg's native forms to ksync::cuda::cg (ksync/cuda/device/cg.hpp; the built-in Poisson
// operator only), in the shape of every bridge file (native_bridge.hpp).
#pragma once

#include <ksync/cg_types.hpp>
#include <ksync/detail/native_bridge.hpp>
#if KSYNC_NATIVE_BRIDGE
#include <ksync/cuda/device/cg.hpp>

#include <cstdint>

namespace ksync::detail {

template <class T>
struct twin_of<"ksync::cg", Kokkos::Cuda, T> : twin_for_floating_point<T> {};

template <class BView, class XView>
cg_result twin(operation<"ksync::cg"> /*tag*/, const Kokkos::Cuda& exec, std::int64_t m, const BView& b, const XView& x,
               cg_form form, const cg_options& options) {
  return ksync::cuda::cg(exec.cuda_stream(), m, b.data(), x.data(), form, options);
}

}  // namespace ksync::detail
#endif
