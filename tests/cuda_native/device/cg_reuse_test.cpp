// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::cg used again: one solver (or the per-thread one behind ksync::cuda::cg) solving with one input
// changed must give what a fresh solver gives; solves on two streams in turn must not disturb each other;
// bad b and x are refused with x left as it was; and a failed allocation throws allocation_error naming the
// operation and the bytes, leaks nothing (ksync::cuda::live_bytes before == after) and leaves ksync usable.
// The portable twin is tests/cg_reuse_test.cpp.
#include "../../support/cg_reference.hpp"
#include "../../support/errors.hpp"
#include "../../support/faults.hpp"
#include "../../support/gpu.hpp"
#include "../../support/native_cg.hpp"

#include <ksync/cuda/allocation.hpp>
#include <ksync/cuda/device/cg.hpp>
#include <ksync/cuda/device/reduce.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/host_memory.hpp>
#include <ksync/cuda/stream.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace {

using ksync::cg_form;
using buffer = ksync::cuda::device_buffer<double>;

constexpr int m = 32;  // small enough for the compute-sanitizer runs (cg_grid_enabled)
constexpr std::size_t n = std::size_t{m} * m;

using ksync::test::cg_options_with;

const ksync::cg_options usual = cg_options_with(1e-10, 2000, 8);

// The inputs of one solve; x is zeroed on the stream before it.
struct solve_inputs {
  cudaStream_t stream = cudaStreamPerThread;
  const double* b = nullptr;
  double* x = nullptr;
  ksync::cg_options options = usual;
  ksync::cuda::cg_tuning tuning = {};
};

struct outcome {
  ksync::cg_result result;
  std::vector<double> x;
};

outcome solve_with(ksync::cuda::cg_solver<double>& solver, const solve_inputs& in, cg_form form) {
  KSYNC_CUDA_CHECK(cudaMemsetAsync(in.x, 0, n * sizeof(double), in.stream));
  outcome out;
  out.result = solver.solve(in.stream, in.b, in.x, form, in.options, in.tuning);
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(in.stream));
  out.x.resize(n);
  KSYNC_CUDA_CHECK(cudaMemcpy(out.x.data(), in.x, n * sizeof(double), cudaMemcpyDeviceToHost));
  return out;
}

// The same answer as `want` within rounding; bit for bit where the two solves must have run the same grid
// (a stale grid's reductions round differently, the only trace it leaves).
void expect_same(const outcome& got, const outcome& want, bool bit_for_bit = false) {
  EXPECT_EQ(got.result.iterations, want.result.iterations);
  EXPECT_EQ(got.result.converged, want.result.converged);
  EXPECT_NEAR(got.result.relative_residual, want.result.relative_residual, 1e-9 * want.result.relative_residual);
  ASSERT_EQ(got.result.residual_history.size(), want.result.residual_history.size());
  // An entry no kernel wrote reads NaN (the solver fills a new history with it), which the difference skips.
  EXPECT_EQ(std::count_if(got.result.residual_history.begin(), got.result.residual_history.end(),
                          [](double h) { return std::isnan(h); }),
            0);
  EXPECT_LE(ksync::test::relative_max_difference(got.result.residual_history, want.result.residual_history), 1e-9)
      << "the residual history differs";
  EXPECT_LE(ksync::test::relative_max_difference(got.x, want.x), 1e-9) << "max |x - x_fresh| / max |x_fresh|";
  if (bit_for_bit) {
    EXPECT_EQ(got.x, want.x) << "x differs from the fresh solver's in its last bits";
  }
}

// For each form: one solver solves `first`, then `second`, which must agree with a fresh solver's answer.
void expect_second_as_fresh(const solve_inputs& first, const solve_inputs& second, bool bit_for_bit = false) {
  for (const auto form : ksync::test::native_forms_here()) {
    SCOPED_TRACE(std::string("form ") + std::string(ksync::to_string(form)));
    ksync::cuda::cg_solver<double> solver(m);
    (void)solve_with(solver, first, form);
    const auto reused = solve_with(solver, second, form);
    ksync::cuda::cg_solver<double> fresh(m);
    expect_same(reused, solve_with(fresh, second, form), bit_for_bit);
  }
}

struct problem {
  buffer b{ksync::test::cg_right_hand_side<double>(m, 41u)};
  buffer other_b{ksync::test::cg_right_hand_side<double>(m, 42u)};
  buffer x{n};
  buffer other_x{n};
  [[nodiscard]] solve_inputs base() const { return {.b = b.data(), .x = x.data()}; }
};

template <class Change>
solve_inputs changed(solve_inputs inputs, Change&& change) {
  change(inputs);
  return inputs;
}

TEST(CgReuseGpu, EachCapturedInputChangedOnce) {
  KSYNC_REQUIRE_GPU();
  const problem p;
  const ksync::cuda::stream other_stream;
  const auto base = p.base();
  const std::vector<std::pair<const char*, std::function<void(solve_inputs&)>>> changes = {
      {"b", [&](solve_inputs& in) { in.b = p.other_b.data(); }},
      {"x", [&](solve_inputs& in) { in.x = p.other_x.data(); }},
      {"history on", [](solve_inputs& in) { in.options.record_history = true; }},
      {"tolerance", [](solve_inputs& in) { in.options.tolerance = 1e-3; }},
      // Below check_every (a shorter batch too), and above it (the same batch length).
      {"max_iterations", [](solve_inputs& in) { in.options.max_iterations = 7; }},
      {"max_iterations, same batch", [](solve_inputs& in) { in.options.max_iterations = 21; }},
      {"check_every", [](solve_inputs& in) { in.options.check_every = 1; }},
      {"stream", [&](solve_inputs& in) { in.stream = other_stream.get(); }},
  };
  for (const auto& [name, change] : changes) {
    SCOPED_TRACE(std::string("changed: ") + name);
    expect_second_as_fresh(base, changed(base, change));
  }
  {
    // 4 blocks of step kernels instead of 1 (m * m = 1024 unknowns, 4 per thread by default).
    SCOPED_TRACE("changed: elements_per_thread (the grid)");
    expect_second_as_fresh(base, changed(base, [](solve_inputs& in) { in.tuning.elements_per_thread = 1; }), true);
  }
  SCOPED_TRACE("history off after on");
  const auto with_history = changed(base, [](solve_inputs& in) { in.options.record_history = true; });
  expect_second_as_fresh(with_history, base);
  SCOPED_TRACE("batch of 1 kept where 10 are asked for");
  const auto one_per_batch = changed(base, [](solve_inputs& in) { in.options = cg_options_with(1e-10, 120, 1); });
  expect_second_as_fresh(one_per_batch, changed(one_per_batch, [](solve_inputs& in) { in.options.check_every = 10; }));
}

// ksync::cuda::cg keeps a solver per thread, keyed on (m, device): another m on the same thread must solve
// as a fresh solver of that extent does.
TEST(CgReuseGpu, TheThreadsKeptSolverIsRemadeForAnotherExtent) {
  KSYNC_REQUIRE_GPU();
  constexpr int smaller = m - 8;
  const std::size_t unknowns = std::size_t{smaller} * smaller;
  const problem p;
  const buffer small_b(ksync::test::cg_right_hand_side<double>(smaller, 43u));
  buffer small_x(unknowns);
  for (const auto form : ksync::test::native_forms_here()) {
    SCOPED_TRACE(std::string("form ") + std::string(ksync::to_string(form)));
    (void)ksync::cuda::cg(cudaStreamPerThread, m, p.b.data(), p.x.data(), form, usual);
    KSYNC_CUDA_CHECK(cudaMemset(small_x.data(), 0, unknowns * sizeof(double)));
    const auto kept = ksync::cuda::cg(cudaStreamPerThread, smaller, small_b.data(), small_x.data(), form, usual);
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    const std::vector<double> kept_x = small_x.to_host();
    KSYNC_CUDA_CHECK(cudaMemset(small_x.data(), 0, unknowns * sizeof(double)));
    ksync::cuda::cg_solver<double> fresh(smaller);
    const auto want = fresh.solve(cudaStreamPerThread, small_b.data(), small_x.data(), form, usual);
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    EXPECT_EQ(kept.iterations, want.iterations);
    EXPECT_LE(ksync::test::relative_max_difference(kept_x, small_x.to_host()), 1e-9);
  }
}

// A solve returns while batches past the converged one are still queued on its stream: the next solve, on
// another stream, must not reset the state under them. Large enough (256 x 256, a few hundred iterations,
// batches of 16) that a surplus batch is still running when the second solve starts.
// x is zeroed on the stream that solves next: ksync::cuda::stream is non-blocking, so a cudaMemset (legacy
// stream, asynchronous to the host) is not ordered before its kernels. With a cudaMemset here the alone
// solves read x while it was being zeroed, once the GPU was shared enough for the two to overlap, and every
// round then "differed" from a wrong reference (seen on an H200 under ctest -j16).
TEST(CgReuseGpu, SolvesOnTwoStreamsInTurnAgreeWithSolvingAlone) {
  KSYNC_REQUIRE_GPU();
  constexpr int large = 256;
  constexpr std::size_t unknowns = std::size_t{large} * large;
  const buffer b1(std::vector<double>(unknowns, 1.0));
  const buffer b2(ksync::test::cg_right_hand_side<double>(large, 45u));
  buffer x1(unknowns);
  buffer x2(unknowns);
  const ksync::cuda::stream first_stream;
  const ksync::cuda::stream second_stream;
  const auto options = cg_options_with(1e-10, 4000, 16);
  constexpr double agreement = 1e-9;  // max |x - x_alone| / max |x_alone|: rounding, not a disturbed solve
  const auto zero_on = [&](const ksync::cuda::stream& on, buffer& x) {
    KSYNC_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, unknowns * sizeof(double), on.get()));
  };
  const auto solve_alone = [&](const buffer& b, buffer& x, cg_form form) {
    zero_on(first_stream, x);
    (void)ksync::cuda::cg(first_stream.get(), large, b.data(), x.data(), form, options);
    KSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    auto solution = x.to_host();
    // The reference itself is checked, so that a wrong one cannot pass for a disturbed pair.
    EXPECT_LE(ksync::test::true_relative_residual(large, b.to_host(), solution), 1e-8) << "the solve alone";
    return solution;
  };
  for (const auto form : ksync::test::native_forms_here()) {
    SCOPED_TRACE(std::string("form ") + std::string(ksync::to_string(form)));
    const auto first_alone = solve_alone(b1, x1, form);
    const auto second_alone = solve_alone(b2, x2, form);
    ksync::cuda::cg_solver<double> solver(large);
    int differing = 0;
    double worst_first = 0;
    double worst_second = 0;
    for (int round = 0; round < 20; ++round) {
      zero_on(first_stream, x1);
      zero_on(second_stream, x2);
      KSYNC_CUDA_CHECK(cudaDeviceSynchronize());
      // Back to back, no wait between: the per-thread solver of ksync::cuda::cg on even rounds.
      const auto solve = [&](const ksync::cuda::stream& on, const buffer& b, buffer& x) {
        return round % 2 == 0 ? ksync::cuda::cg(on.get(), large, b.data(), x.data(), form, options)
                              : solver.solve(on.get(), b.data(), x.data(), form, options);
      };
      (void)solve(first_stream, b1, x1);
      (void)solve(second_stream, b2, x2);
      KSYNC_CUDA_CHECK(cudaDeviceSynchronize());
      const double first = ksync::test::relative_max_difference(x1.to_host(), first_alone);
      const double second = ksync::test::relative_max_difference(x2.to_host(), second_alone);
      worst_first = std::max(worst_first, first);
      worst_second = std::max(worst_second, second);
      if (first > agreement || second > agreement) ++differing;
    }
    EXPECT_EQ(differing, 0) << "of 20 back-to-back pairs on two streams; largest max |x - x_alone| / max |x_alone|: "
                            << worst_first << " (first stream), " << worst_second << " (second)";
  }
}

TEST(CgReuseGpu, NotFiniteOverlappingOrHostInputIsRefusedAndXIsLeftAsItWas) {
  KSYNC_REQUIRE_GPU();
  const auto b_host = ksync::test::cg_right_hand_side<double>(m, 43u);
  const auto guess = ksync::test::cg_right_hand_side<double>(m, 44u);
  ksync::cuda::cg_solver<double> solver(m);
  const cudaStream_t s = cudaStreamPerThread;
  // Solves b from x_values, which must be refused with `message`; returns x as the refusal left it.
  const auto x_after_refusal = [&](const std::vector<double>& b_values, const std::vector<double>& x_values,
                                   cg_form form, const char* message) {
    const buffer b(b_values);
    buffer x(x_values);
    EXPECT_TRUE(ksync::test::refuses([&] { (void)solver.solve(s, b.data(), x.data(), form); }, message));
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(s));
    return x.to_host();
  };
  for (const auto form : ksync::test::native_forms_here()) {
    SCOPED_TRACE(std::string("form ") + std::string(ksync::to_string(form)));
    for (const double bad : {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity()}) {
      auto bad_b = b_host;
      bad_b[100] = bad;
      EXPECT_EQ(
          x_after_refusal(bad_b, guess, form, "ksync::cuda::cg: b holds NaN or Inf, or entries whose squares overflow"),
          guess);
      auto bad_guess = guess;
      bad_guess[7] = bad;
      auto kept =
          x_after_refusal(b_host, bad_guess, form, "ksync::cuda::cg: the initial x holds NaN or Inf, or A x overflows");
      EXPECT_FALSE(std::isfinite(kept[7]));
      kept[7] = guess[7];
      EXPECT_EQ(kept, guess);
    }
  }
  const buffer both(2 * n);
  EXPECT_TRUE(ksync::test::refuses([&] { (void)solver.solve(s, both.data(), both.data() + n / 2, cg_form::fused); },
                                   "overlap: x is written while b is read"));
  std::vector<double> host_b = b_host;
  buffer x(guess);
  EXPECT_TRUE(ksync::test::refuses([&] { (void)solver.solve(s, host_b.data(), x.data(), cg_form::fused); },
                                   "is host memory unknown to CUDA"));
  const ksync::cuda::pinned_buffer<double> pinned_x(n);
  const buffer b(b_host);
  EXPECT_TRUE(
      ksync::test::refuses([&] { (void)solver.solve(s, b.data(), pinned_x.data(), cg_form::fused); }, "x = 0x"));
  EXPECT_EQ(x.to_host(), guess);
}

TEST(CgReuseGpu, FailedAllocationsLeakNothingAndNameTheBytes) {
  KSYNC_REQUIRE_GPU();
  const problem p;
  const buffer values(std::vector<double>(1000, 1.0));
  // The per-thread stream's workspace first, so that the solver's own allocations alone are counted below.
  EXPECT_EQ(ksync::cuda::reduce(cudaStreamPerThread, values.data(), 1000, ksync::reduce_op::sum), 1000.0);
  // The solver's buffers (and its history, on the first solve that records one).
  EXPECT_GE(ksync::test::expect_every_allocation_failure_is_clean(
                [&] {
                  ksync::cuda::cg_solver<double> solver(m);
                  (void)solver.solve(cudaStreamPerThread, p.b.data(), p.x.data(), cg_form::fused,
                                     cg_options_with(1e-10, 500, 8, true));
                },
                "ksync::cuda::cg"),
            9);
  // A stream's first reduction makes its workspace (device memory and the pinned mailbox), even where the
  // stream is given the handle of one destroyed before, and the stream's destruction frees it.
  const auto before_fresh = ksync::test::held_resources::now();
  EXPECT_EQ(ksync::test::expect_every_allocation_failure_is_clean(
                [&] {
                  const ksync::cuda::stream fresh;
                  EXPECT_EQ(ksync::cuda::reduce(fresh.get(), values.data(), 1000, ksync::reduce_op::sum), 1000.0);
                },
                "ksync::cuda workspace (reductions, mailbox)"),
            2);
  EXPECT_EQ(ksync::test::held_resources::now(), before_fresh);
  // A real failure: more than the GPU has. (Not under compute-sanitizer, which reports every failed CUDA
  // call: its runs set KSYNC_TEST_MAX_SIZE.)
  const auto before = ksync::test::held_resources::now();
  if (std::getenv("KSYNC_TEST_MAX_SIZE") == nullptr) {
    try {
      const buffer too_large(std::size_t{1} << 42);  // 32 TiB
      ADD_FAILURE() << "a 32 TiB buffer was allocated";
    } catch (const ksync::cuda::allocation_error& error) {
      EXPECT_NE(std::string(error.what())
                    .find("ksync::cuda::device_buffer: allocating 35184372088832 bytes of device memory"),
                std::string::npos)
          << error.what();
    }
  }
  EXPECT_EQ(ksync::test::held_resources::now(), before);
  EXPECT_TRUE(ksync::test::refuses([] { const buffer overflowing(std::numeric_limits<std::size_t>::max() / 4); },
                                   "elements of 8 bytes overflow size_t"));
  // Usable afterwards, the same solver type for the same problem.
  ksync::cuda::cg_solver<double> solver(m);
  const auto result = solver.solve(cudaStreamPerThread, p.b.data(), p.x.data(), cg_form::persistent_grid_sync, usual);
  EXPECT_TRUE(result.converged);
}

// A CUDA call that fails in the middle of a solve, at every checked call a solve makes (construction
// included): the error names the call and its file:line, nothing is kept, and the solver that failed solves
// the same problem again as a fresh one does. Few iterations, so that the sanitizer's leak run stays short.
TEST(CgReuseGpu, AFailedCudaCallMidSolveLeaksNothingAndTheSolverSolvesAgain) {
  KSYNC_REQUIRE_GPU();
  const problem p;
  solve_inputs in = p.base();
  in.options = cg_options_with(1e-10, 20, 8, true);
  for (const auto form : ksync::test::native_forms_here()) {
    SCOPED_TRACE(std::string("form ") + std::string(ksync::to_string(form)));
    ksync::cuda::cg_solver<double> fresh(m);
    const outcome reference = solve_with(fresh, in, form);
    const auto solve_unchecked = [&](ksync::cuda::cg_solver<double>& solver) {
      // No checked CUDA call of the test's own in the loop's count: the zeroing is unchecked here.
      (void)cudaMemsetAsync(in.x, 0, n * sizeof(double), in.stream);
      (void)solver.solve(in.stream, in.b, in.x, form, in.options, in.tuning);
    };
    EXPECT_GE(ksync::test::expect_every_cuda_failure_is_clean(
                  [&] {
                    ksync::cuda::cg_solver<double> solver(m);
                    solve_unchecked(solver);
                  },
                  [] {}),
              5);
    ksync::cuda::cg_solver<double> kept(m);
    (void)solve_with(kept, in, form);
    EXPECT_GE(ksync::test::expect_every_cuda_failure_is_clean(
                  [&] { solve_unchecked(kept); }, [&] { expect_same(solve_with(kept, in, form), reference); }),
              5);
  }
}

}  // namespace
