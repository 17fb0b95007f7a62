// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::jacobi's native forms to ksync::cuda::jacobi (ksync/cuda/device/jacobi.hpp), in the
// shape of every bridge file (native_bridge.hpp).
#pragma once

#include <ksync/detail/native_bridge.hpp>
#include <ksync/types.hpp>
#if KSYNC_NATIVE_BRIDGE
#include <ksync/cuda/device/jacobi.hpp>

#include <cstdint>

namespace ksync::detail {

template <class T>
struct twin_of<"ksync::jacobi", Kokkos::Cuda, T> : twin_for_floating_point<T> {};

template <class View>
void twin(operation<"ksync::jacobi"> /*tag*/, const Kokkos::Cuda& exec, const View& u, const View& scratch, int phases,
          jacobi_form form) {
  (void)ksync::cuda::jacobi(exec.cuda_stream(), u.data(), scratch.data(), static_cast<std::int64_t>(u.extent(0)),
                            phases, form);
}

}  // namespace ksync::detail
#endif
