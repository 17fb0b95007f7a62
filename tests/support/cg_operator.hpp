// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The user operator of the portable CG tests, by its rows: scale A + shift I for the m x m Poisson operator A
// (SPD for scale > 0 and shift >= 0). cg_test shifts it, cg_reuse_test scales it. It holds no View and has no
// operator==: trivially copyable, so that a kept solver compares it by its bytes (docs/architecture.md,
// "What is kept between calls").
#pragma once

#include <ksync/stencil.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace ksync::test {

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

}  // namespace ksync::test
