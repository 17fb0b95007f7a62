// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Argument checks of the portable half: the compile-time ones here; run-time ones in arguments.hpp.
#pragma once

#include <ksync/compat.hpp>
#include <ksync/detail/arguments.hpp>

namespace ksync::detail {

// `exec` can run a kernel over View `V` (a rank-`Rank` View of arithmetic or trivially copyable values).
template <class ExecutionSpace, class V, std::size_t Rank>
constexpr bool is_usable_view_v = Kokkos::is_view_v<V> && compat::view_rank<V> == Rank &&
                                  Kokkos::SpaceAccessibility<ExecutionSpace, typename V::memory_space>::accessible;

// What an operation over two rank-1 Views asks of its arguments first: an execution space instance, and two
// rank-1 Views it can access.
template <class ExecutionSpace, class InView, class OutView>
inline constexpr bool takes_exec_and_two_views_v =
    Kokkos::is_execution_space_v<ExecutionSpace> && is_usable_view_v<ExecutionSpace, InView, 1> &&
    is_usable_view_v<ExecutionSpace, OutView, 1>;

}  // namespace ksync::detail
