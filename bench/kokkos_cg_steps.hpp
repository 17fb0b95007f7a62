// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The steps of the CG a Kokkos application writes (the `kokkos_host_scalars` baseline rows of cg_bench and
// cg_csr_bench): one parallel_for or parallel_reduce per vector step, in double; each file adds the Apply
// of its operator.
#pragma once

#include "portable.hpp"

#include <cstdint>

namespace ksync::bench::kokkos_cg {

using Vector = Kokkos::View<double*>;
using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;

// The pattern (checks.hpp) in double.
struct FillRightHandSide {
  Vector b;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { b(i) = pattern_value(i); }
};
struct Direction {
  Vector r, p;
  double beta;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { p(i) = r(i) + beta * p(i); }
};
struct Dot {
  Vector u, v;
  KOKKOS_FUNCTION void operator()(std::int64_t i, double& sum) const { sum += u(i) * v(i); }
};
struct Update {
  Vector x, r, p, ap;
  double alpha;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    x(i) += alpha * p(i);
    r(i) -= alpha * ap(i);
  }
};

}  // namespace ksync::bench::kokkos_cg
