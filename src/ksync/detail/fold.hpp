// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the portable reductions share (Kokkos only, any backend): how each reduce_op combines and its
// identity, the Kokkos reducer writing into a target (a rank-0 View: asynchronous; a host scalar:
// blocking), the accumulator type, and how host backends split the data. The strategies themselves are one
// file each in detail/reduce/, listed in detail/reduce/strategies.hpp.
#pragma once

#include <ksync/compat.hpp>
#include <ksync/types.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace ksync::detail {

// Whether `ExecutionSpace` runs on the host (its threads share the CPU's caches: contiguous chunks win).
template <class ExecutionSpace>
inline constexpr bool runs_on_host =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecutionSpace::memory_space>::accessible;

// The type partial results are kept in. On host backends each thread adds a contiguous share of the data in
// sequence, and a float partial of values of one sign stops growing once it passes 2^24 (a small addend
// rounds away; a benchmark check failed at 2^24 and 2^28 floats on 2 OpenMP threads). So float sums are
// accumulated in double there, at no cost to a memory-bound loop. On GPU backends each thread adds only a
// few values before a tree combines them (as CUB does), and float stays float. min and max never round.
template <class ExecutionSpace, reduce_op Op, class T>
using accumulator_t =
    std::conditional_t<Op == reduce_op::sum && std::is_same_v<T, float> && runs_on_host<ExecutionSpace>, double, T>;

// How a reduce_op combines an accumulator with a term, and its identity.
template <reduce_op Op>
struct combine;
template <>
struct combine<reduce_op::sum> {
  template <class Acc>
  KOKKOS_FUNCTION static constexpr Acc identity() {
    return Acc{};
  }
  template <class Acc, class Term>
  KOKKOS_FUNCTION static constexpr void into(Acc& acc, const Term& term) {
    acc += static_cast<Acc>(term);
  }
};
// min and max start from +-infinity for floating types and from the largest / lowest value otherwise, as
// ksync::cuda does. ksync defines these itself: Kokkos' reduction_identity differs between versions (see
// compat.hpp).
template <>
struct combine<reduce_op::min> {
  template <class Acc>
  KOKKOS_FUNCTION static constexpr Acc identity() {
    if constexpr (std::is_floating_point_v<Acc>) {
      return Kokkos::Experimental::infinity_v<Acc>;
    } else {
      return Kokkos::Experimental::finite_max_v<Acc>;
    }
  }
  template <class Acc, class Term>
  KOKKOS_FUNCTION static constexpr void into(Acc& acc, const Term& term) {
    if (static_cast<Acc>(term) < acc) acc = static_cast<Acc>(term);
  }
};
template <>
struct combine<reduce_op::max> {
  template <class Acc>
  KOKKOS_FUNCTION static constexpr Acc identity() {
    if constexpr (std::is_floating_point_v<Acc>) {
      return -Kokkos::Experimental::infinity_v<Acc>;
    } else {
      return Kokkos::Experimental::finite_min_v<Acc>;
    }
  }
  template <class Acc, class Term>
  KOKKOS_FUNCTION static constexpr void into(Acc& acc, const Term& term) {
    if (acc < static_cast<Acc>(term)) acc = static_cast<Acc>(term);
  }
};

// The Kokkos reducer for each reduce_op.
template <reduce_op Op, class T, class Space>
struct kokkos_reducer;
template <class T, class Space>
struct kokkos_reducer<reduce_op::sum, T, Space> {
  using type = Kokkos::Sum<T, Space>;
};
template <class T, class Space>
struct kokkos_reducer<reduce_op::min, T, Space> {
  using type = Kokkos::Min<T, Space>;
};
template <class T, class Space>
struct kokkos_reducer<reduce_op::max, T, Space> {
  using type = Kokkos::Max<T, Space>;
};

// The memory space a reducer's target lives in: a View's own, or the host for a scalar.
template <class Target, class = void>
struct target_space {
  using type = Kokkos::HostSpace;
};
template <class Target>
struct target_space<Target, std::enable_if_t<Kokkos::is_view_v<Target>>> {
  using type = typename Target::memory_space;
};

// The Kokkos reducer of `Op` writing into `target` (a rank-0 View, or a host scalar).
template <reduce_op Op, class Acc, class Target>
KOKKOS_FUNCTION auto make_reducer(Target& target) {
  return typename kokkos_reducer<Op, Acc, typename target_space<std::remove_const_t<Target>>::type>::type(target);
}

// Calls body(std::integral_constant<reduce_op, op>{}): a run-time op to a compile-time one.
template <class Body>
decltype(auto) with_reduce_op(reduce_op op, Body&& body) {
  switch (op) {
    case reduce_op::sum:
      return body(std::integral_constant<reduce_op, reduce_op::sum>{});
    case reduce_op::min:
      return body(std::integral_constant<reduce_op, reduce_op::min>{});
    case reduce_op::max:
      return body(std::integral_constant<reduce_op, reduce_op::max>{});
  }
  throw std::invalid_argument("ksync: op = " + std::to_string(static_cast<int>(op)) + " is not a reduce_op");
}

// Host backends: how the tuned kernels split n elements — one contiguous chunk per lane, at least 4096
// elements each, no more lanes than the backend's threads.
struct host_chunks {
  std::int64_t lanes;
  std::int64_t chunk;  // elements per lane
};
template <class ExecutionSpace>
host_chunks split_for_host(const ExecutionSpace& exec, std::int64_t n) {
  const std::int64_t lanes =
      std::min<std::int64_t>(std::max<std::int64_t>(1, exec.concurrency()), std::max<std::int64_t>(1, n / 4096));
  return {.lanes = lanes, .chunk = (n + lanes - 1) / lanes};
}

template <class ExecutionSpace>
using IndexPolicy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;

}  // namespace ksync::detail
