// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cg against the host CG (support/cg_reference.hpp) on whatever backend Kokkos has: every reachable
// form, float and double, the built-in operator and user operators of both shapes, and bad input.
#include "support/cg_operator.hpp"
#include "support/cg_reference.hpp"
#include "support/errors.hpp"
#include "support/kokkos.hpp"
#include "support/types.hpp"

#include <ksync/cg.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using ksync::cg_form;
using exec_space = Kokkos::DefaultExecutionSpace;
using memory_space = exec_space::memory_space;

KSYNC_TYPED_SUITE(Cg, ksync::test::floating_types);

// The host kernels' block form of the built-in operator gives the bits of its rows one at a time, for blocks
// that start and end anywhere in a grid row, span several, or cover a grid of one or two columns.
TEST(PoissonRows, BlockFormGivesTheBitsOfEachRow) {
  for (const std::int64_t m : {1, 2, 3, 7, 64}) {
    const std::int64_t n = m * m;
    std::vector<double> v(static_cast<std::size_t>(n));
    for (std::int64_t j = 0; j < n; ++j)
      v[static_cast<std::size_t>(j)] = 1.0 / static_cast<double>(3 + 7 * j) + static_cast<double>(j % 5);
    const ksync::array_entries<double> entries{v.data()};
    const ksync::poisson_2d op{.m = m};
    for (std::int64_t first = 0; first < n; first += 1 + first / 3) {
      for (const std::int64_t count : {std::int64_t{1}, m - 1, m, m + 1, 2 * m + 3, n - first}) {
        if (count < 1 || first + count > n) continue;
        SCOPED_TRACE(::testing::Message() << "m = " << m << ", first = " << first << ", count = " << count);
        std::vector<double> block(static_cast<std::size_t>(count));
        op.rows(entries, first, count, block.data());
        for (std::int64_t k = 0; k < count; ++k)
          ASSERT_EQ(block[static_cast<std::size_t>(k)], op(entries, first + k)) << "row " << first + k;
      }
    }
  }
}

// The forms ksync::cg runs on the default execution space: the portable and shared ones, and on Kokkos::Cuda
// with the native half the native ones through the bridge.
std::vector<cg_form> reachable_forms() {
  return ksync::test::reachable<exec_space>(ksync::all_cg_forms);
}

// Runs check(form) for each of them, under a trace that names the form.
template <class Check>
void for_each_reachable_form(Check&& check) {
  for (const auto form : reachable_forms()) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    check(form);
  }
}

// A + shift I by its rows (shift >= 0): the user operator of the tests.
using ksync::test::poisson_rows;

// The same operator applying itself with a parallel_for of its own.
template <class T>
struct shifted_apply {
  std::int64_t m;
  double shift;
  std::int64_t extent() const { return m * m; }
  void apply(const exec_space& exec, const Kokkos::View<const T*, memory_space>& x,
             const Kokkos::View<T*, memory_space>& y) const {
    const poisson_rows rows{.m = m, .shift = shift};
    const auto at = ksync::detail::cg::entries<Kokkos::View<const T*, memory_space>>{x};
    Kokkos::parallel_for(
        "ksync::test::shifted_apply", Kokkos::RangePolicy<exec_space>(exec, 0, extent()),
        KOKKOS_LAMBDA(std::int64_t i) { y(i) = rows(at, i); });
  }
};

template <class T, class Operator>
void expect_matches_reference(const Operator& op, int m, double shift, cg_form form, const std::vector<T>& x0,
                              unsigned int seed) {
  SCOPED_TRACE("form " + std::string(ksync::to_string(form)) + ", m = " + std::to_string(m));
  const auto c = ksync::test::stencil_case<T>(m, seed, 10, x0, shift);
  const auto [result, x] = ksync::test::solve_case(op, c, form, c.options(5));
  ksync::test::expect_agrees(c, result, x, ksync::test::classic_stencil_agreement<T>());
}

TYPED_TEST(Cg, EveryReachableFormMatchesTheHostReference) {
  using T = TypeParam;
  for (const int m : ksync::test::cg_grid_sizes) {
    const std::vector<T> zero(static_cast<std::size_t>(m) * m, T(0));
    for (const auto form : reachable_forms())
      expect_matches_reference<T>(ksync::poisson_2d{m}, m, 0.0, form, zero, 7u + static_cast<unsigned int>(m));
  }
}

TYPED_TEST(Cg, StartsFromTheGuessItIsGiven) {
  using T = TypeParam;
  const int m = 16;
  const auto guess = ksync::test::cg_right_hand_side<T>(m, 99u);
  for (const auto form : reachable_forms())
    expect_matches_reference<T>(ksync::poisson_2d{m}, m, 0.0, form, guess, 3u);
}

TYPED_TEST(Cg, UserOperatorsOfBothShapes) {
  using T = TypeParam;
  for (const int m : {3, 16, 33}) {
    const std::vector<T> zero(static_cast<std::size_t>(m) * m, T(0));
    for (const auto form : ksync::ids_of_half<cg_form>(ksync::strategy_half::portable))
      expect_matches_reference<T>(poisson_rows{.m = m, .shift = 0.5}, m, 0.5, form, zero, 5u);
    for (const auto form : ksync::ids_of_half<cg_form>(ksync::strategy_half::portable))
      if (!ksync::runs_fused_pass(form))  // the forms that take an operator given by its apply
        expect_matches_reference<T>(shifted_apply<T>{.m = m, .shift = 0.5}, m, 0.5, form, zero, 5u);
  }
}

TYPED_TEST(Cg, RecordsTheResidualHistory) {
  using T = TypeParam;
  const int m = 16;
  const exec_space exec;
  const auto b_host = ksync::test::cg_right_hand_side<T>(m, 1u);
  const std::vector<T> zero(b_host.size(), T(0));
  const auto reference = ksync::test::host_cg<T>(m, b_host, zero, ksync::test::cg_tolerance<T>(), 1000);
  for_each_reachable_form([&](cg_form form) {
    const auto b = ksync::test::to_device(b_host);
    const auto x = ksync::test::to_device(zero);
    ksync::cg_options options;
    options.tolerance = ksync::test::cg_tolerance<T>();
    options.record_history = true;
    const auto result = ksync::cg(exec, ksync::poisson_2d{m}, b, x, form, options);
    ASSERT_EQ(result.residual_history.size(), static_cast<std::size_t>(result.iterations) + 1);
    // x0 = 0: r = b, so 1 up to the rounding of two sums of the same squares.
    EXPECT_NEAR(result.residual_history.front(), 1.0, sizeof(T) == sizeof(float) ? 1e-6 : 1e-14);
    EXPECT_DOUBLE_EQ(result.residual_history.back(), result.relative_residual);
    // Early values agree with the reference to rounding; later ones drift apart slowly in float.
    const std::size_t compared = std::min<std::size_t>(10, result.residual_history.size());
    for (std::size_t k = 0; k < compared; ++k)
      EXPECT_NEAR(result.residual_history[k], reference.history[k], 1e-3 * reference.history[k]) << "k = " << k;
  });
}

TYPED_TEST(Cg, StopsAtMaxIterationsWithoutConverging) {
  using T = TypeParam;
  const int m = 33;
  const exec_space exec;
  for_each_reachable_form([&](cg_form form) {
    const auto b = ksync::test::to_device(ksync::test::cg_right_hand_side<T>(m, 2u));
    const Kokkos::View<T*> x("x", static_cast<std::size_t>(m) * m);
    ksync::cg_options options;
    options.tolerance = 1e-30;
    options.max_iterations = 7;
    options.check_every = 3;  // the last batch runs past max_iterations and must stop on the device
    const auto result = ksync::cg(exec, ksync::poisson_2d{m}, b, x, form, options);
    EXPECT_FALSE(result.converged);
    EXPECT_EQ(result.iterations, 7);
    EXPECT_GT(result.relative_residual, 1e-30);
  });
}

TYPED_TEST(Cg, ZeroRightHandSideGivesZeroAtOnce) {
  using T = TypeParam;
  const int m = 7;
  const exec_space exec;
  for_each_reachable_form([&](cg_form form) {
    const Kokkos::View<T*> b("b", static_cast<std::size_t>(m) * m);
    const auto x = ksync::test::to_device(ksync::test::cg_right_hand_side<T>(m, 4u));
    const auto result = ksync::cg(exec, ksync::poisson_2d{m}, b, x, form);
    exec.fence();
    EXPECT_TRUE(result.converged);
    EXPECT_EQ(result.iterations, 0);
    for (const T value : ksync::test::to_host(x))
      EXPECT_EQ(value, T(0));
  });
}

TEST(CgArguments, BadInputIsRefusedBeforeAnyWork) {
  const exec_space exec;
  const int m = 4;
  const auto guess = ksync::test::cg_right_hand_side<double>(m, 8u);
  const auto b = ksync::test::to_device(ksync::test::cg_right_hand_side<double>(m, 9u));
  const auto x = ksync::test::to_device(guess);
  const auto message = [&](auto&& call) { return ksync::test::invalid_argument_message(call); };
  const auto with = [](auto change) {
    ksync::cg_options options;
    change(options);
    return options;
  };
  const ksync::poisson_2d op{m};
  EXPECT_EQ(message([&] { (void)ksync::cg(exec, op, b, x, cg_form::fused, with([](auto& o) { o.tolerance = 0; })); }),
            "ksync::cg: options.tolerance = 0 must be positive and finite");
  EXPECT_EQ(message([&] { (void)ksync::cg(exec, op, b, x, cg_form::fused, with([](auto& o) { o.tolerance = -1; })); }),
            "ksync::cg: options.tolerance = -1 must be positive and finite");
  EXPECT_EQ(message([&] {
              (void)ksync::cg(exec, op, b, x, cg_form::fused,
                              with([](auto& o) { o.tolerance = std::numeric_limits<double>::quiet_NaN(); }));
            }),
            "ksync::cg: options.tolerance = nan must be positive and finite");
  EXPECT_EQ(
      message([&] { (void)ksync::cg(exec, op, b, x, cg_form::fused, with([](auto& o) { o.max_iterations = 0; })); }),
      "ksync::cg: options.max_iterations = 0 must be at least 1");
  EXPECT_EQ(message([&] {
              (void)ksync::cg(exec, op, b, x, cg_form::device_scalars, with([](auto& o) { o.check_every = 0; }));
            }),
            "ksync::cg: options.check_every = 0 must be at least 1");
  const Kokkos::View<double*> short_b("b", 15);
  EXPECT_EQ(message([&] { (void)ksync::cg(exec, op, short_b, x, cg_form::fused); }),
            "ksync::cg: b.extent(0) = 15 but there are 16 unknowns");
  EXPECT_EQ(message([&] { (void)ksync::cg(exec, ksync::poisson_2d{5}, b, x, cg_form::fused); }),
            "ksync::cg: op.extent() = 25 but there are 16 unknowns");
  std::ostringstream apply_forms;
  apply_forms << ksync::names_where<cg_form>{[](cg_form form) { return !ksync::runs_fused_pass(form); }};
  EXPECT_EQ(message([&] { (void)ksync::cg(exec, shifted_apply<double>{.m = m, .shift = 0.5}, b, x, cg_form::fused); }),
            "ksync::cg: form = fused forms the direction where the operator reads it and needs an operator given by "
            "its rows; an apply operator runs " +
                apply_forms.str());
  if (!ksync::has_native_bridge<exec_space>) {
    EXPECT_NE(message([&] { (void)ksync::cg(exec, op, b, x, cg_form::persistent_grid_sync); })
                  .find("ksync::cg: form = persistent_grid_sync runs ksync::cuda's kernels: it needs exec to be "
                        "Kokkos::Cuda"),
              std::string::npos);
  } else {
    EXPECT_EQ(message([&] { (void)ksync::cg(exec, poisson_rows{.m = m, .shift = 0.5}, b, x, cg_form::cuda_graph); }),
              "ksync::cg: form = cuda_graph runs ksync::cuda's kernels, which take the built-in ksync::poisson_2d "
              "and ksync::csr_matrix (with 64-bit offsets where the columns are 64-bit) only");
  }
  // Nothing ran: x still holds the guess.
  exec.fence();
  EXPECT_EQ(ksync::test::to_host(x), guess);
}

// NaN or Inf in b or in the initial guess: refused at the start of every form, x left as it was (the native
// forms, reached through the bridge, name ksync::cuda::cg).
TEST(CgArguments, NotFiniteInputIsRefusedAndXIsLeftAsItWas) {
  const exec_space exec;
  const int m = 8;
  const auto b_host = ksync::test::cg_right_hand_side<double>(m, 30u);
  const auto guess = ksync::test::cg_right_hand_side<double>(m, 31u);
  for_each_reachable_form([&](cg_form form) {
    for (const double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
      auto bad_b = b_host;
      bad_b[5] = bad;
      const auto x = ksync::test::to_device(guess);
      EXPECT_TRUE(ksync::test::refuses(
          [&] { (void)ksync::cg(exec, ksync::poisson_2d{m}, ksync::test::to_device(bad_b), x, form); },
          "b holds NaN or Inf, or entries whose squares overflow"));
      exec.fence();
      EXPECT_EQ(ksync::test::to_host(x), guess);
      auto bad_guess = guess;
      bad_guess[17] = -bad;
      const auto bad_x = ksync::test::to_device(bad_guess);
      EXPECT_TRUE(ksync::test::refuses(
          [&] { (void)ksync::cg(exec, ksync::poisson_2d{m}, ksync::test::to_device(b_host), bad_x, form); },
          "the initial x holds NaN or Inf, or A x overflows"));
      exec.fence();
      auto kept = ksync::test::to_host(bad_x);
      EXPECT_FALSE(std::isfinite(kept[17]));
      kept[17] = guess[17];
      EXPECT_EQ(kept, guess);
    }
  });
}

TEST(CgArguments, OverlappingBAndXAndAnEmptyOperatorAreRefused) {
  const exec_space exec;
  const int m = 4;
  const Kokkos::View<double*> both("both", 24);
  Kokkos::deep_copy(both, 1.0);
  const auto b = Kokkos::subview(both, std::pair{0, 16});
  const auto x = Kokkos::subview(both, std::pair{8, 24});
  EXPECT_TRUE(ksync::test::refuses([&] { (void)ksync::cg(exec, ksync::poisson_2d{m}, b, x); },
                                   "overlap: x is written while b is read"));
  EXPECT_TRUE(ksync::test::refuses([&] { (void)ksync::cg(exec, ksync::poisson_2d{m}, b, b); },
                                   "overlap: x is written while b is read"));
  const Kokkos::View<double*> empty("empty", 0);
  EXPECT_TRUE(ksync::test::refuses([&] { (void)ksync::cg(exec, ksync::poisson_2d{0}, empty, empty); },
                                   "ksync::cg: op.extent() = 0: the operator has no unknowns"));
}

TEST(CgForms, NamesRoundTripAndTheTableCoversEveryForm) {
  std::string names;  // every row's name, as the refusal lists them
  for (const auto form : ksync::all_cg_forms) {
    EXPECT_EQ(ksync::cg_form_from_string(ksync::to_string(form)), form);
    names += (names.empty() ? "" : ", ") + std::string(ksync::to_string(form));
  }
  EXPECT_EQ(ksync::test::invalid_argument_message([] { (void)ksync::cg_form_from_string("fast"); }),
            "ksync::cg_form_from_string: name = \"fast\" is not a form (" + names + ")");
}

}  // namespace
