// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What ksync::parallel_for and ksync::parallel_reduce share: the index type f receives, the checks of n (rows
// and cols) and the strategy made before any work, the 2-D forms' default order.
#pragma once

#include <ksync/detail/arguments.hpp>
#include <ksync/detail/index_pair.hpp>
#include <ksync/index_strategy.hpp>

#include <Kokkos_Core.hpp>

#include <concepts>
#include <cstdint>
#include <type_traits>

namespace ksync::detail {

// f receives an std::int32_t where n is one, an std::int64_t for every other integer type of n (a View's
// size_t extent included), so that n >= 2^31 is reached where it is asked for.
template <class N>
using index_type_of = std::conditional_t<std::is_same_v<N, std::int32_t>, std::int32_t, std::int64_t>;

template <class N>
concept index_count = std::integral<N> && !std::is_same_v<N, bool>;

// `name`: the argument's name in the message (n, or a 2-D form's rows and cols).
template <class Index, class N>
Index checked_index_count(const char* where, N n, const char* name = "n") {
  if constexpr (std::is_signed_v<N>) check_argument(n >= 0, where, name, " = ", n, " is negative");
  if constexpr (std::is_unsigned_v<N> && sizeof(N) >= sizeof(std::int64_t))
    check_argument(n <= static_cast<N>(Kokkos::Experimental::finite_max_v<std::int64_t>), where, name, " = ", n,
                   " does not fit an std::int64_t");
  return static_cast<Index>(n);
}

inline void check_index_strategy(const char* where, index_strategy strategy) {
  check_argument(is_known(strategy), where, "strategy = ", static_cast<int>(strategy), " is not an index_strategy");
}

// The order MDRangePolicy iterates ExecutionSpace's ranges in by default (its inner direction: Left on GPU
// backends, whose default layout is LayoutLeft; Right on host backends).
template <class ExecutionSpace>
inline constexpr iterate layout_order =
    Kokkos::default_inner_direction<ExecutionSpace>::value == Kokkos::Iterate::Left ? iterate::left : iterate::right;

// f's index type for extents of types R and C: std::int32_t where both are, std::int64_t otherwise.
template <class R, class C>
using pair_index_type_of =
    std::conditional_t<std::is_same_v<R, std::int32_t> && std::is_same_v<C, std::int32_t>, std::int32_t, std::int64_t>;

}  // namespace ksync::detail
