// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What ksync::parallel_for and ksync::parallel_reduce share: the index type f receives, the checks of n and
// the strategy made before any work.
#pragma once

#include <ksync/detail/arguments.hpp>
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

template <class Index, class N>
Index checked_index_count(const char* where, N n) {
  if constexpr (std::is_signed_v<N>) check_argument(n >= 0, where, "n = ", n, " is negative");
  if constexpr (std::is_unsigned_v<N> && sizeof(N) >= sizeof(std::int64_t))
    check_argument(n <= static_cast<N>(Kokkos::Experimental::finite_max_v<std::int64_t>), where, "n = ", n,
                   " does not fit an std::int64_t");
  return static_cast<Index>(n);
}

inline void check_index_strategy(const char* where, index_strategy strategy) {
  check_argument(is_known(strategy), where, "strategy = ", static_cast<int>(strategy), " is not an index_strategy");
}

}  // namespace ksync::detail
