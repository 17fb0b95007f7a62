// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What ksync knows of a Kokkos execution space, for code that picks sizes or implementations by backend
// (the benchmarks and tests do):
//   runs_on_host<Exec>       its threads run on the CPU and share its caches (contiguous chunks per thread
//                            win there; a GPU wants consecutive threads on consecutive elements);
//   has_native_bridge<Exec>  the native strategies and forms can run on it: Exec is Kokkos::Cuda and this
//                            ksync was built with its native half (ksync/detail/native_bridge.hpp).
#pragma once

#include <ksync/config.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

#if KSYNC_HAS_CUDA_NATIVE && defined(KOKKOS_ENABLE_CUDA)
#define KSYNC_NATIVE_BRIDGE 1
#else
#define KSYNC_NATIVE_BRIDGE 0
#endif

namespace ksync {

template <class ExecutionSpace>
inline constexpr bool runs_on_host =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecutionSpace::memory_space>::accessible;

template <class ExecutionSpace>
inline constexpr bool has_native_bridge =
#if KSYNC_NATIVE_BRIDGE
    std::is_same_v<ExecutionSpace, Kokkos::Cuda>;
#else
    false;
#endif

}  // namespace ksync
