// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Must not compile: ksync::cg given a preconditioner that is a function object (z = M^-1 v as m(v, z))
// instead of one with m.apply(exec, v, z) stops the build with its static_assert, which says the shape it
// takes. tests/CMakeLists.txt builds this file as its own target and passes when the compiler prints that
// message.
#include <ksync/cg.hpp>

#include <Kokkos_Core.hpp>

namespace {
struct ScaleByAQuarter {
  void operator()(const Kokkos::View<const double*>& v, const Kokkos::View<double*>& z) const {
    Kokkos::deep_copy(z, v);
  }
};
}  // namespace

void solve_with_a_function_object(const Kokkos::DefaultExecutionSpace& exec, const Kokkos::View<const double*>& b,
                                  const Kokkos::View<double*>& x) {
  (void)ksync::cg(exec, ksync::poisson_2d{4}, b, x, ksync::cg_form::host_scalars, {}, ScaleByAQuarter{});
}
