// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the portable CG tests share: their user operator, the solve of a case (support/cg_case.hpp) by
// ksync::cg, and a host matrix's solve as a ksync::csr_matrix held to the host reference.
#pragma once

#include "cg_case.hpp"
#include "kokkos.hpp"

#include <ksync/cg.hpp>
#include <ksync/csr.hpp>
#include <ksync/csr_matrix.hpp>
#include <ksync/stencil.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace ksync::test {

// scale A + shift I by its rows for the m x m Poisson operator A (SPD for scale > 0 and shift >= 0). cg_test
// shifts it, cg_reuse_test scales it. It holds no View and has no operator==: trivially copyable, so that a
// kept solver compares it by its bytes (docs/architecture.md, "What is kept between calls").
struct poisson_rows {
  std::int64_t m;
  double scale = 1.0;
  double shift = 0.0;
  KOKKOS_FUNCTION std::int64_t extent() const { return m * m; }
  template <class Vector>
  KOKKOS_FUNCTION auto operator()(const Vector& v, std::int64_t i) const {
    using T = std::remove_cvref_t<decltype(v(i))>;
    return static_cast<T>(scale) * ksync::poisson_2d_apply<T>(v, static_cast<int>(m), static_cast<int>(i)) +
           static_cast<T>(shift) * v(i);
  }
};
static_assert(std::is_trivially_copyable_v<poisson_rows>);

// c solved by ksync::cg on a default execution space instance: the result, and x copied back.
template <class T, class Operator>
std::pair<ksync::cg_result, std::vector<T>> solve_case(const Operator& op, const cg_case<T>& c, ksync::cg_form form,
                                                       const ksync::cg_options& options) {
  const Kokkos::DefaultExecutionSpace exec;
  const auto b = to_device(c.b);
  const auto x = to_device(c.x0);
  const ksync::cg_result result = ksync::cg(exec, op, b, x, form, options);
  exec.fence();
  return {result, to_host(x)};
}

template <class T, class Index, class Offset>
void expect_csr_solves(const host_csr_matrix<T, Index, Offset>& host, ksync::cg_form form, unsigned int seed,
                       ksync::cg_preconditioner preconditioner = ksync::cg_preconditioner::none,
                       ksync::cg_recurrence recurrence = ksync::cg_recurrence::classic) {
  const ksync::csr_matrix a(Kokkos::DefaultExecutionSpace{}, host);
  const auto c = sparse_case(host, seed, 40, preconditioner);
  auto options = c.options(4);
  options.recurrence = recurrence;
  const auto [result, x] = solve_case(a, c, form, options);
  expect_agrees(c, result, x, sparse_agreement<T>(recurrence, c.reference.iterations));
}

}  // namespace ksync::test
