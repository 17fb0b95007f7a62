// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cg with a preconditioner of yours (m.apply(exec, v, z) enqueues z = M^-1 v): host_scalars and
// device_scalars against a host PCG in double with the same M, on the generated matrices whose diagonal
// varies; the calls it makes; Jacobi given as an object agreeing with options.preconditioner = jacobi; and
// what it refuses (other forms, jacobi beside it, an M that is not positive definite).
#include "support/cg_case.hpp"
#include "support/errors.hpp"
#include "support/kokkos.hpp"
#include "support/sparse.hpp"
#include "support/types.hpp"

#include <ksync/cg.hpp>
#include <ksync/csr_matrix.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

using ksync::cg_form;
using exec_space = Kokkos::DefaultExecutionSpace;
using memory_space = exec_space::memory_space;
using ksync::test::sparse_family;

// The portable forms that take a preconditioner of yours, read from the rows.
std::vector<cg_form> user_preconditioned_forms() {
  std::vector<cg_form> forms;
  for (const auto form : ksync::ids_of_half<cg_form>(ksync::strategy_half::portable))
    if (ksync::takes_user_preconditioner(form)) forms.push_back(form);
  return forms;
}

// M^-1 = D^-1 (2 D - A) D^-1, the first two terms of A^-1's Neumann series about D = diag(A): symmetric, and
// positive definite where 2 D - A is (the generated matrices are diagonally dominant). Not diagonal, so it
// changes the iterates as no option of ksync does. `calls` counts apply().
template <class T>
struct neumann_preconditioner {
  ksync::csr_matrix<T> a;
  Kokkos::View<T*, memory_space> inverse;  // D^-1
  Kokkos::View<T*, memory_space> scaled;   // D^-1 v, the work vector
  std::shared_ptr<int> calls = std::make_shared<int>(0);

  neumann_preconditioner(const exec_space& exec, const ksync::host_csr_matrix<T, std::int32_t>& host)
      : a(exec, host), inverse("inverse", host.rows), scaled("scaled", host.rows) {
    const auto host_inverse = ksync::test::host_inverse_diagonal(host);
    Kokkos::deep_copy(exec, inverse, ksync::test::to_device(std::vector<T>(host_inverse.begin(), host_inverse.end())));
  }
  void apply(const exec_space& exec, const Kokkos::View<const T*, memory_space>& v,
             const Kokkos::View<T*, memory_space>& z) const {
    ++*calls;
    const auto d = inverse;
    const auto s = scaled;
    const auto matrix = a;
    const Kokkos::RangePolicy<exec_space> all(exec, 0, v.extent(0));
    Kokkos::parallel_for("ksync::test::neumann::scale", all, KOKKOS_LAMBDA(std::int64_t i) { s(i) = d(i) * v(i); });
    Kokkos::parallel_for(
        "ksync::test::neumann::apply", all, KOKKOS_LAMBDA(std::int64_t i) { z(i) = d(i) * (2 * v(i) - matrix(s, i)); });
  }
};

// The same M on the host, in double.
template <class T>
auto host_neumann(const ksync::host_csr_matrix<T, std::int32_t>& host) {
  return [inverse = ksync::test::host_inverse_diagonal(host), &host](const std::vector<double>& v,
                                                                     std::vector<double>& z) {
    std::vector<double> scaled(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      scaled[i] = inverse[i] * v[i];
    const auto product = ksync::test::host_apply(host, scaled);
    for (std::size_t i = 0; i < v.size(); ++i)
      z[i] = inverse[i] * (2 * v[i] - product[i]);
  };
}

// z = D^-1 v: Jacobi, given as an object.
template <class T>
struct jacobi_object {
  Kokkos::View<T*, memory_space> inverse;
  void apply(const exec_space& exec, const Kokkos::View<const T*, memory_space>& v,
             const Kokkos::View<T*, memory_space>& z) const {
    const auto d = inverse;
    Kokkos::parallel_for(
        "ksync::test::jacobi_object", Kokkos::RangePolicy<exec_space>(exec, 0, v.extent(0)),
        KOKKOS_LAMBDA(std::int64_t i) { z(i) = d(i) * v(i); });
  }
};

// z = -v: negative definite.
template <class T>
struct negated {
  void apply(const exec_space& exec, const Kokkos::View<const T*, memory_space>& v,
             const Kokkos::View<T*, memory_space>& z) const {
    Kokkos::parallel_for(
        "ksync::test::negated", Kokkos::RangePolicy<exec_space>(exec, 0, v.extent(0)),
        KOKKOS_LAMBDA(std::int64_t i) { z(i) = -v(i); });
  }
};

KSYNC_TYPED_SUITE(UserPreconditioner, ksync::test::floating_types);

// Every family whose diagonal varies, both forms, with and without the true-residual check: the host PCG's
// iterations, a residual in M^-1's norm under the tolerance, apply() called twice a start (one more start for
// the true-residual check, and one per restart) and once an iteration (device_scalars: once an iteration of
// every batch it enqueued).
TYPED_TEST(UserPreconditioner, SolvesAsTheHostPcgWithTheSameM) {
  using T = TypeParam;
  const exec_space exec;
  for (const auto family : {sparse_family::variable_2d, sparse_family::anisotropic_2d, sparse_family::random_laplacian,
                            sparse_family::poisson_3d}) {
    for (const int m : {2, 7}) {
      const auto host = ksync::test::generate<T, std::int32_t>(family, m);
      const auto precondition = host_neumann(host);
      ksync::test::cg_case<T> c;
      c.b = ksync::test::sparse_right_hand_side<T>(host.rows, 21u);
      c.x0.assign(c.b.size(), T(0));
      c.tolerance = ksync::test::cg_tolerance<T>();
      c.max_iterations = 4 * static_cast<int>(host.rows) + 40;
      const auto apply = [&](const std::vector<double>& v, std::vector<double>& y) {
        y = ksync::test::host_apply(host, v);
      };
      c.reference =
          ksync::test::host_pcg_with(apply, precondition, c.b.size(), c.b, c.x0, c.tolerance, c.max_iterations);
      c.true_residual = [&](const std::vector<T>& x) {  // ||b - A x|| / ||b||, both in M^-1's norm
        const std::vector<double> b(c.b.begin(), c.b.end());
        std::vector<double> r = ksync::test::host_apply(host, std::vector<double>(x.begin(), x.end()));
        for (std::size_t i = 0; i < r.size(); ++i)
          r[i] = b[i] - r[i];
        std::vector<double> z(r.size());
        std::vector<double> zb(r.size());
        precondition(r, z);
        precondition(b, zb);
        double rz = 0;
        double bz = 0;
        for (std::size_t i = 0; i < r.size(); ++i) {
          rz += r[i] * z[i];
          bz += b[i] * zb[i];
        }
        return std::sqrt(rz / bz);
      };
      for (const auto form : user_preconditioned_forms()) {
        for (const bool check_true_residual : {false, true}) {
          SCOPED_TRACE(ksync::test::to_string(family) + ", m = " + std::to_string(m) + ", form " +
                       std::string(ksync::to_string(form)) + (check_true_residual ? ", true residual checked" : ""));
          const neumann_preconditioner<T> neumann(exec, host);
          auto options = c.options(4);
          options.check_true_residual = check_true_residual;
          const auto b = ksync::test::to_device(c.b);
          const auto x = ksync::test::to_device(c.x0);
          const ksync::csr_matrix a(exec, host);
          const auto result = ksync::cg(exec, a, b, x, form, options, neumann);
          exec.fence();
          ksync::test::expect_agrees(c, result, ksync::test::to_host(x),
                                     ksync::test::classic_sparse_agreement<T>(c.reference.iterations));
          const int starts = 1 + (check_true_residual && result.iterations > 0 ? 1 + result.restarts : 0);
          const int in_iterations = *neumann.calls - 2 * starts;
          if (form == cg_form::host_scalars) {
            EXPECT_EQ(in_iterations, result.iterations);
          } else {  // whole batches of check_every iterations, the host looking one batch behind
            EXPECT_GE(in_iterations, result.iterations);
            EXPECT_EQ(in_iterations % options.check_every, 0) << in_iterations;
          }
        }
      }
    }
  }
}

// Jacobi as an object runs the recurrence options.preconditioner = jacobi runs: the same iterations and x.
TEST(UserPreconditioner, JacobiAsAnObjectAgreesWithTheJacobiOption) {
  const exec_space exec;
  const auto host = ksync::test::generate<double, std::int32_t>(sparse_family::variable_2d, 16);
  const ksync::csr_matrix a(exec, host);
  const auto inverse = ksync::test::host_inverse_diagonal(host);
  const jacobi_object<double> object{ksync::test::to_device(inverse)};
  const auto b = ksync::test::to_device(ksync::test::sparse_right_hand_side<double>(host.rows, 5u));
  ksync::cg_options options;
  options.tolerance = 1e-10;
  for (const auto form : user_preconditioned_forms()) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    const Kokkos::View<double*> x_object("x_object", host.rows);
    const Kokkos::View<double*> x_option("x_option", host.rows);
    const auto by_object = ksync::cg(exec, a, b, x_object, form, options, object);
    auto jacobi = options;
    jacobi.preconditioner = ksync::cg_preconditioner::jacobi;
    const auto by_option = ksync::cg(exec, a, b, x_option, form, jacobi);
    EXPECT_NEAR(by_object.iterations, by_option.iterations, 1);
    EXPECT_TRUE(by_object.converged);
    const auto object_x = ksync::test::to_host(x_object);
    const auto option_x = ksync::test::to_host(x_option);
    for (std::size_t i = 0; i < object_x.size(); ++i)
      ASSERT_NEAR(object_x[i], option_x[i], 1e-8 * (1 + std::fabs(option_x[i]))) << "entry " << i;
  }
}

TEST(UserPreconditioner, RefusesOtherFormsJacobiBesideItAndAnMThatIsNotPositive) {
  const exec_space exec;
  const auto host = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 4);
  const ksync::csr_matrix a(exec, host);
  const jacobi_object<double> object{ksync::test::to_device(ksync::test::host_inverse_diagonal(host))};
  const auto guess = ksync::test::sparse_right_hand_side<double>(16, 8u);
  const auto b = ksync::test::to_device(ksync::test::sparse_right_hand_side<double>(16, 9u));
  for (const auto form : ksync::all_cg_forms) {
    if (ksync::takes_user_preconditioner(form)) continue;
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    const auto x = ksync::test::to_device(guess);
    EXPECT_TRUE(ksync::test::refuses(
        [&] { (void)ksync::cg(exec, a, b, x, form, {}, object); },
        "form = " + std::string(ksync::to_string(form)) + " does not take a preconditioner of yours"));
  }
  ksync::cg_options jacobi;
  jacobi.preconditioner = ksync::cg_preconditioner::jacobi;
  for (const auto form : user_preconditioned_forms()) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    const auto x = ksync::test::to_device(guess);
    EXPECT_TRUE(ksync::test::refuses([&] { (void)ksync::cg(exec, a, b, x, form, jacobi, object); },
                                     "options.preconditioner = jacobi beside a preconditioner of yours"));
    EXPECT_TRUE(ksync::test::refuses([&] { (void)ksync::cg(exec, a, b, x, form, {}, negated<double>{}); },
                                     "the preconditioner is not positive definite: b . M^-1 b = -"));
    exec.fence();
    EXPECT_EQ(ksync::test::to_host(x), guess);
  }
}

}  // namespace
