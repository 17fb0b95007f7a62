// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One ksync::cg_solver used twice: the second solve, with one input changed, must give what a fresh solver
// gives for that input, on every form the default execution space reaches. The kokkos_graph form keeps a
// graph between solves (docs/architecture.md, "What is kept between calls"); each test changes one of the
// inputs that graph captured, or one it must not have captured.
#include "support/cg_operator.hpp"
#include "support/cg_reference.hpp"
#include "support/errors.hpp"
#include "support/kokkos.hpp"

#include <ksync/cg.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using ksync::cg_form;
using exec_space = Kokkos::DefaultExecutionSpace;
using memory_space = exec_space::memory_space;
using vector = Kokkos::View<double*, memory_space>;
using solver_type = ksync::cg_solver<exec_space, double>;

constexpr int m = 16;
constexpr std::int64_t n = std::int64_t{m} * m;

// scale * A (A the built-in Poisson operator, shift 0): trivially copyable, no operator==, so compared by its bytes.
using ksync::test::poisson_rows;

// A + diag(d), d in a View.
struct diagonal_shift {
  std::int64_t m;
  Kokkos::View<const double*, memory_space> diagonal;
  KOKKOS_FUNCTION std::int64_t extent() const { return m * m; }
  template <class Vector>
  KOKKOS_FUNCTION double operator()(const Vector& v, std::int64_t i) const {
    return ksync::poisson_2d_apply<double>(v, static_cast<int>(m), static_cast<int>(i)) + diagonal(i) * v(i);
  }
};

// With operator==: compared by it (a View compares its data pointer, span and extents).
struct diagonal_rows : diagonal_shift {
  bool operator==(const diagonal_rows& other) const { return m == other.m && diagonal == other.diagonal; }
};

// Without: neither comparable nor trivially copyable (it holds a View), so never taken for the same.
struct opaque_rows : diagonal_shift {};
static_assert(ksync::detail::comparable_capture<poisson_rows> && ksync::detail::comparable_capture<diagonal_rows> &&
              !ksync::detail::comparable_capture<opaque_rows>);

vector filled(std::int64_t count, unsigned int seed, double low = -1.0, double high = 1.0) {
  std::vector<double> host(static_cast<std::size_t>(count));
  unsigned int state = seed * 2654435761u + 1u;
  for (auto& value : host) {
    state = state * 1664525u + 1013904223u;
    value = low + (high - low) * static_cast<double>(state >> 8) / static_cast<double>(1u << 24);
  }
  return ksync::test::to_device(host);
}

vector copy_of(const vector& v) {
  vector copy("ksync::test::copy", v.extent(0));
  Kokkos::deep_copy(copy, v);
  return copy;
}

using ksync::test::cg_options_with;

const ksync::cg_options usual = cg_options_with(1e-10, 400, 4);

std::vector<cg_form> forms_for(bool built_in_operator) {
  std::vector<cg_form> forms;
  for (const auto form : ksync::test::reachable<exec_space>(ksync::all_cg_forms))
    if (built_in_operator || !ksync::is_native(form)) forms.push_back(form);  // native: the built-in one only
  return forms;
}

// Solves with `solver` (already used) and with a fresh solver from the same guess; both must agree.
template <class Operator>
void expect_as_fresh(solver_type& solver, const exec_space& exec, const Operator& op, const vector& b, const vector& x,
                     cg_form form, const ksync::cg_options& options) {
  const vector fresh_x = copy_of(x);
  const auto reused = solver.solve(exec, op, b, x, form, options);
  solver_type fresh(exec, n);
  const auto expected = fresh.solve(exec, op, b, fresh_x, form, options);
  EXPECT_EQ(reused.iterations, expected.iterations);
  EXPECT_EQ(reused.converged, expected.converged);
  EXPECT_NEAR(reused.relative_residual, expected.relative_residual, 1e-12 + 1e-9 * expected.relative_residual);
  ASSERT_EQ(reused.residual_history.size(), expected.residual_history.size());
  for (std::size_t k = 0; k < expected.residual_history.size(); ++k)
    EXPECT_NEAR(reused.residual_history[k], expected.residual_history[k], 1e-9 * expected.residual_history[k] + 1e-300)
        << "k = " << k;
  exec.fence();
  EXPECT_LE(ksync::test::relative_max_difference(ksync::test::to_host(x), ksync::test::to_host(fresh_x)), 1e-9)
      << "max |x - x_fresh| / max |x_fresh|";
}

// The inputs of one solve.
template <class Operator>
struct solve_inputs {
  exec_space exec;
  Operator op;
  vector b;
  vector x;  // zeroed before the solve: the guess is 0
  ksync::cg_options options = usual;
};

// For each form: one solver solves `first`, then `second`, which must give what a fresh solver gives.
template <class First, class Second>
void expect_second_as_fresh(const solve_inputs<First>& first, const solve_inputs<Second>& second) {
  const bool built_in = std::is_same_v<First, ksync::poisson_2d> && std::is_same_v<Second, ksync::poisson_2d>;
  for (const auto form : forms_for(built_in)) {
    SCOPED_TRACE(std::string("form ") + std::string(ksync::to_string(form)));
    solver_type solver(first.exec, n);
    Kokkos::deep_copy(first.x, 0.0);
    (void)solver.solve(first.exec, first.op, first.b, first.x, form, first.options);
    Kokkos::deep_copy(second.x, 0.0);
    expect_as_fresh(solver, second.exec, second.op, second.b, second.x, form, second.options);
  }
}

const ksync::poisson_2d poisson{m};

solve_inputs<ksync::poisson_2d> base() {
  return {.exec = exec_space(), .op = poisson, .b = filled(n, 1u), .x = vector("x", n)};
}

// Each test changes one input of base() (or of a base with a user operator) and nothing else.
template <class Operator, class Change>
solve_inputs<Operator> changed(solve_inputs<Operator> inputs, Change&& change) {
  change(inputs);
  return inputs;
}

TEST(CgReuse, OperatorOfTheSameTypeWithOtherFields) {
  const auto first = solve_inputs<poisson_rows>{
      .exec = exec_space(), .op = {.m = m, .scale = 1.0}, .b = filled(n, 2u), .x = vector("x", n)};
  expect_second_as_fresh(first, changed(first, [](auto& in) { in.op.scale = 2.0; }));
}

TEST(CgReuse, OperatorHoldingAnotherView) {
  const diagonal_rows op{{.m = m, .diagonal = filled(n, 3u, 0.0, 1.0)}};
  const auto first =
      solve_inputs<diagonal_rows>{.exec = exec_space(), .op = op, .b = filled(n, 4u), .x = vector("x", n)};
  expect_second_as_fresh(first, changed(first, [](auto& in) { in.op.diagonal = filled(n, 5u, 5.0, 9.0); }));
}

TEST(CgReuse, OperatorWhoseViewChangedInPlace) {  // the graph may be kept: it reads the new values
  const vector diagonal = filled(n, 6u, 0.0, 1.0);
  const diagonal_rows op{{.m = m, .diagonal = diagonal}};
  const auto inputs =
      solve_inputs<diagonal_rows>{.exec = exec_space(), .op = op, .b = filled(n, 7u), .x = vector("x", n)};
  for (const auto form : forms_for(false)) {
    SCOPED_TRACE(std::string("form ") + std::string(ksync::to_string(form)));
    solver_type solver(inputs.exec, n);
    Kokkos::deep_copy(diagonal, filled(n, 6u, 0.0, 1.0));
    Kokkos::deep_copy(inputs.x, 0.0);
    (void)solver.solve(inputs.exec, inputs.op, inputs.b, inputs.x, form, inputs.options);
    Kokkos::deep_copy(diagonal, filled(n, 8u, 5.0, 9.0));
    Kokkos::deep_copy(inputs.x, 0.0);
    expect_as_fresh(solver, inputs.exec, inputs.op, inputs.b, inputs.x, form, inputs.options);
  }
}

TEST(CgReuse, OperatorThatCannotBeCompared) {
  const opaque_rows op{{.m = m, .diagonal = filled(n, 9u, 0.0, 1.0)}};
  const auto first =
      solve_inputs<opaque_rows>{.exec = exec_space(), .op = op, .b = filled(n, 10u), .x = vector("x", n)};
  expect_second_as_fresh(first, changed(first, [](auto& in) { in.op.diagonal = filled(n, 11u, 5.0, 9.0); }));
}

TEST(CgReuse, OperatorOfAnotherType) {
  const auto first = solve_inputs<poisson_rows>{
      .exec = exec_space(), .op = {.m = m, .scale = 3.0}, .b = filled(n, 12u), .x = vector("x", n)};
  const diagonal_rows other{{.m = m, .diagonal = filled(n, 13u, 5.0, 9.0)}};
  const auto second = solve_inputs<diagonal_rows>{.exec = first.exec, .op = other, .b = first.b, .x = first.x};
  expect_second_as_fresh(first, second);
}

TEST(CgReuse, OtherRightHandSide) {
  const auto first = base();
  expect_second_as_fresh(first, changed(first, [](auto& in) { in.b = filled(n, 14u); }));
}

TEST(CgReuse, OtherSolutionView) {
  const auto first = base();
  expect_second_as_fresh(first, changed(first, [](auto& in) { in.x = vector("other_x", n); }));
}

TEST(CgReuse, HistoryTurnedOn) {
  const auto first = base();
  expect_second_as_fresh(first, changed(first, [](auto& in) { in.options.record_history = true; }));
}

TEST(CgReuse, HistoryTurnedOff) {
  const auto first = changed(base(), [](auto& in) { in.options.record_history = true; });
  expect_second_as_fresh(first, changed(first, [](auto& in) { in.options.record_history = false; }));
}

TEST(CgReuse, HistoryLongerThanTheOneKept) {  // a new history buffer
  const auto first = changed(base(), [](auto& in) { in.options.record_history = true; });
  expect_second_as_fresh(first, changed(first, [](auto& in) { in.options.max_iterations = 4000; }));
}

TEST(CgReuse, OtherTolerance) {
  const auto first = base();
  expect_second_as_fresh(first, changed(first, [](auto& in) { in.options.tolerance = 1e-3; }));
}

TEST(CgReuse, OtherMaxIterations) {
  const auto first = base();
  expect_second_as_fresh(first, changed(first, [](auto& in) { in.options.max_iterations = 6; }));
}

TEST(CgReuse, OtherCheckEvery) {  // a batch of 1 kept where 10 are asked for would stop 10 times too early
  const auto first = changed(base(), [](auto& in) { in.options = cg_options_with(1e-10, 60, 1); });
  expect_second_as_fresh(first, changed(first, [](auto& in) { in.options.check_every = 10; }));
}

TEST(CgReuse, AnotherInstance) {
  const auto first = base();
  expect_second_as_fresh(
      first, changed(first, [](auto& in) { in.exec = Kokkos::Experimental::partition_space(in.exec, 1)[0]; }));
}

TEST(CgReuse, AnotherSizeIsRefusedAndTheSolverStaysUsable) {
  const auto inputs = base();
  const int smaller = m / 2;
  const auto small_b = filled(std::int64_t{smaller} * smaller, 23u);
  for (const auto form : forms_for(true)) {
    SCOPED_TRACE(std::string("form ") + std::string(ksync::to_string(form)));
    solver_type solver(inputs.exec, n);
    (void)solver.solve(inputs.exec, inputs.op, inputs.b, inputs.x, form, inputs.options);
    EXPECT_TRUE(ksync::test::refuses(
        [&] {
          (void)solver.solve(inputs.exec, ksync::poisson_2d{smaller}, small_b, vector("x", small_b.extent(0)), form,
                             inputs.options);
        },
        "ksync::cg: op.extent() = 64 but there are 256 unknowns"));
    Kokkos::deep_copy(inputs.x, 0.0);
    expect_as_fresh(solver, inputs.exec, inputs.op, inputs.b, inputs.x, form, inputs.options);
  }
}

TEST(CgReuse, OptionsMadeInvalidBetweenSolvesAreRefused) {
  const auto inputs = base();
  for (const auto form : forms_for(true)) {
    SCOPED_TRACE(std::string("form ") + std::string(ksync::to_string(form)));
    solver_type solver(inputs.exec, n);
    (void)solver.solve(inputs.exec, inputs.op, inputs.b, inputs.x, form, inputs.options);
    const vector x = filled(n, 25u);
    const auto guess = ksync::test::to_host(x);
    const auto solve_with = [&](const ksync::cg_options& options) {
      (void)solver.solve(inputs.exec, inputs.op, inputs.b, x, form, options);
    };
    EXPECT_TRUE(ksync::test::refuses([&] { solve_with(cg_options_with(std::nan(""), 400, 4)); },
                                     "options.tolerance = nan must be positive and finite"));
    EXPECT_TRUE(ksync::test::refuses([&] { solve_with(cg_options_with(1e-10, 0, 4)); },
                                     "options.max_iterations = 0 must be at least 1"));
    EXPECT_TRUE(ksync::test::refuses([&] { solve_with(cg_options_with(1e-10, 400, -2)); },
                                     "options.check_every = -2 must be at least 1"));
    EXPECT_EQ(ksync::test::to_host(x), guess);  // nothing ran
    expect_as_fresh(solver, inputs.exec, inputs.op, inputs.b, x, form, inputs.options);
  }
}

}  // namespace
