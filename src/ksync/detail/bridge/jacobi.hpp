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

template <class View>
void native(operation<"ksync::jacobi"> /*tag*/, const Kokkos::Cuda& exec, const View& u, const View& scratch,
            const int& phases, const iteration_form& form) {
  (void)ksync::cuda::jacobi(exec.cuda_stream(), u.data(), scratch.data(), static_cast<std::int64_t>(u.extent(0)),
                            phases, form);
}

}  // namespace ksync::detail
#endif
