// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the portable reductions share (Kokkos only, any backend): how each reduce_op combines and its
// identity, the Kokkos reducer writing into a target (a rank-0 View: asynchronous; a host scalar:
// blocking), the accumulator type, and how host backends split the data. The strategies themselves are one
// file each in detail/reduce/, listed in detail/reduce/strategies.hpp; this file sits beside that folder, not
// in it, and transform, cg and the pipeline read its host-backend split too.
#pragma once

#include <ksync/backend.hpp>
#include <ksync/compat.hpp>
#include <ksync/ops.hpp>
#include <ksync/types.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace ksync::detail {

// The type partial results are kept in. On host backends each thread adds a contiguous share of the data in
// sequence, and a float partial of values of one sign stops growing once it passes 2^24 (a small addend
// rounds away: summed in float partials on 2 OpenMP threads, the benchmarks' sums of 2^24 and 2^28 floats
// miss their 1e-3 relative check). So float sums are accumulated in double there, at no cost to a
// memory-bound loop. On GPU backends each thread adds only a few values before a tree combines them (as CUB
// does), and float stays float. min and max never round.
template <class ExecutionSpace, reduce_op Op, class T>
using accumulator_t =
    std::conditional_t<Op == reduce_op::sum && std::is_same_v<T, float> && runs_on_host<ExecutionSpace>, double, T>;

// How a reduce_op folds a term into an accumulator. The operator and its identity are the shared core's
// (ksync/ops.hpp), the same as ksync::cuda's; ksync does not take Kokkos' reduction_identity, which differs
// between versions (see compat.hpp).
template <reduce_op Op>
struct combine {
  using operator_type = operator_of<Op>;
  template <class Acc>
  KOKKOS_FUNCTION static constexpr Acc identity() {
    return operator_type::template identity<Acc>();
  }
  template <class Acc, class Term>
  KOKKOS_FUNCTION static constexpr void into(Acc& acc, const Term& term) {
    acc = operator_type{}(acc, static_cast<Acc>(term));
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

// Host backends: how the tuned kernels split n elements — one contiguous chunk per lane, at least 1024
// elements each, no more lanes than the backend's threads. With 4096 a CG of m = 64 (4096 unknowns) ran
// every step on one thread of two: host_scalars and device_scalars took 31-33 us an iteration against 27-28
// for Kokkos' own CG (OpenMP, 2 threads, 2026-12-03); with 1024, 26-28.
struct host_chunks {
  std::int64_t lanes;
  std::int64_t chunk;  // elements per lane
};
template <class ExecutionSpace>
host_chunks split_for_host(const ExecutionSpace& exec, std::int64_t n) {
  const std::int64_t lanes =
      std::min<std::int64_t>(std::max<std::int64_t>(1, exec.concurrency()), std::max<std::int64_t>(1, n / 1024));
  return {.lanes = lanes, .chunk = (n + lanes - 1) / lanes};
}

}  // namespace ksync::detail
