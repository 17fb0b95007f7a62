// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::jacobi's native forms to ksync::cuda::jacobi (ksync/cuda/device/jacobi.hpp), in the
// shape of every bridge file (native_bridge.hpp): a generic overload, never reached, and one for
// Kokkos::Cuda when this ksync has its native half.
#pragma once

#include <ksync/detail/native_bridge.hpp>
#if KSYNC_NATIVE_BRIDGE
#include <ksync/cuda/device/jacobi.hpp>
#endif
#include <ksync/types.hpp>

#include <cstdint>

namespace ksync::detail {

template <class ExecutionSpace, class... Arguments>
void native_jacobi(const ExecutionSpace& /*exec*/, const Arguments&... /*arguments*/) {
  unreachable_bridge("ksync::jacobi");
}

#if KSYNC_NATIVE_BRIDGE
template <class View>
void native_jacobi(const Kokkos::Cuda& exec, const View& u, const View& scratch, const int& phases,
                   const iteration_form& form) {
  (void)ksync::cuda::jacobi(exec.cuda_stream(), u.data(), scratch.data(), static_cast<std::int64_t>(u.extent(0)),
                            phases, form);
}
#endif

}  // namespace ksync::detail
