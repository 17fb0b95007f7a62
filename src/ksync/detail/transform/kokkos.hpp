// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// transform_strategy::kokkos — what users write: parallel_for over RangePolicy(0, n), one element per index.
#pragma once

#include <ksync/compat.hpp>
#include <ksync/detail/index_policy.hpp>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

#include <cstdint>

namespace ksync::detail {

template <class InView, class OutView, class F>
struct TransformEach {
  InView in;
  OutView out;
  F f;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { out(i) = f(in(i)); }
};

namespace transform_strategies {

struct kokkos : implements<transform_strategy::kokkos> {
  template <class ExecutionSpace, class InView, class OutView, class F>
  static void run(const ExecutionSpace& exec, const InView& in, const OutView& out, const F& f, std::int64_t n) {
    Kokkos::parallel_for("ksync::transform::kokkos", index_policy<ExecutionSpace>(exec, 0, n),
                         TransformEach<InView, OutView, F>{in, out, f});
  }
};

}  // namespace transform_strategies
}  // namespace ksync::detail
