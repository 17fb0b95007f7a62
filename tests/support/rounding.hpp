// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The rounding checks of floating-point sums, each from the bound its path documents (docs/reductions.md),
// and each with its own mutation test: the same comparison against the reference moved just past the bound
// must fail, so a check with hidden slack (or none at all) cannot pass unnoticed.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

namespace ksync::test {

// What a rounded sum is checked against: the exact sum (long double), the bound on |computed - exact|, and
// one ulp-scaled term u * sum |x_i| (the amount by which the mutation test overshoots the bound).
struct rounding_check {
  long double exact = 0;
  long double bound = 0;
  long double ulp_term = 0;
};

// gamma(depth) * sum |x_i| (Higham, "Accuracy and Stability of Numerical Algorithms", eq. 4.4, for a sum each
// of whose terms passes through at most `depth` roundings), with u the unit roundoff of `Accumulator`.
template <class Accumulator, class T>
rounding_check sum_rounding(const std::vector<T>& data, long double depth) {
  rounding_check check;
  long double magnitude = 0;
  for (const auto& x : data) {
    check.exact += static_cast<long double>(x);
    magnitude += std::fabs(static_cast<long double>(x));
  }
  const long double u = std::numeric_limits<Accumulator>::epsilon() / 2;
  check.bound = depth * u / (1 - depth * u) * magnitude;
  check.ulp_term = u * magnitude;
  return check;
}

// The depth of a tree of P partials, each a sequential sum over at most ceil(n / P) terms, combined in
// ceil(log2 P) levels, plus 3 (the block's warp/shared-memory stages): docs/reductions.md. When the test knows
// P only within [p_low, p_high], the larger of each term.
inline long double tree_depth(std::size_t n, std::size_t p_low, std::size_t p_high) {
  const std::size_t low = p_low == 0 ? 1 : p_low;
  const std::size_t high = p_high < low ? low : p_high;
  return std::ceil(static_cast<long double>(n) / static_cast<long double>(low)) +
         std::ceil(std::log2(static_cast<long double>(high))) + 3;
}

// A float sum accumulated in double, then rounded once to float (portable sums on host backends), whose
// terms first pass through float runs of at most `float_run` additions (the tuned strategy adds runs of 128
// floats per lane before widening them): |computed - exact| <= u_float |exact| + gamma_float(float_run - 1)
// sum |x_i| + gamma_double(n - 1) sum |x_i|.
template <class T>
rounding_check double_accumulated_rounding(const std::vector<T>& data, std::size_t float_run) {
  auto check = sum_rounding<double>(data, data.empty() ? 0 : static_cast<long double>(data.size() - 1));
  const auto runs = sum_rounding<T>(data, float_run == 0 ? 0 : static_cast<long double>(float_run - 1));
  const long double u = std::numeric_limits<T>::epsilon() / 2;
  check.bound += runs.bound + u * std::fabs(check.exact);
  check.ulp_term = runs.ulp_term;
  return check;
}

// ksync::reduce's bound (docs/reductions.md, "Rounding"). Host backends: float sums accumulate in double
// after float runs of at most 128 terms (double sums: gamma(n - 1)). GPU backends: a tree of P partials,
// concurrency / 64 <= P <= concurrency (at least a warp per multiprocessor; `concurrency` is
// exec.concurrency(), the resident threads), P <= n.
template <class T>
rounding_check portable_sum_rounding(const std::vector<T>& data, bool host_backend, std::size_t concurrency) {
  const std::size_t n = data.size();
  if (host_backend) {
    if constexpr (std::is_same_v<T, float>) return double_accumulated_rounding(data, 128);
    return sum_rounding<T>(data, n == 0 ? 0 : static_cast<long double>(n - 1));
  }
  return sum_rounding<T>(data, tree_depth(n, std::min(n, concurrency / 64), std::min(n, concurrency)));
}

// ksync::cuda::reduce's bound (docs/reductions.md): blocks of 128 to 512 threads reading at least 16 elements
// each, at most 16 blocks per multiprocessor and at least half of the multiprocessors' worth of blocks once n
// needs them (a cluster launch may place fewer than one block per multiprocessor); the atomics strategy (and
// automatic, which may choose it) adds each block's partial to the result in turn, one more rounding per block.
template <class T>
rounding_check native_sum_rounding(const std::vector<T>& data, std::size_t multiprocessors, bool atomic_chain) {
  const std::size_t n = data.size();
  const std::size_t most_blocks =
      std::min((n + std::size_t{128} * 16 - 1) / (std::size_t{128} * 16), multiprocessors * 16);
  const std::size_t fewest_blocks = std::max<std::size_t>(
      1, std::min((n + std::size_t{512} * 16 - 1) / (std::size_t{512} * 16), multiprocessors / 2));
  long double depth = tree_depth(n, fewest_blocks * 128, std::max<std::size_t>(1, std::min(n, most_blocks * 512)));
  if (atomic_chain) depth += static_cast<long double>(most_blocks);
  return sum_rounding<T>(data, depth);
}

inline ::testing::AssertionResult within_bound(long double computed, long double reference, long double bound) {
  const long double error = std::fabs(computed - reference);
  if (error <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "|computed - reference| = " << static_cast<double>(error)
                                       << " exceeds the bound " << static_cast<double>(bound) << " (computed "
                                       << static_cast<double>(computed) << ", reference "
                                       << static_cast<double>(reference) << ")";
}

// The reference moved past the bound by one ulp-scaled term, away from `computed`: |computed - moved| =
// |computed - exact| + bound + ulp_term, which the check must reject.
// (An empty sum has no ulp-scaled term: the smallest long double stands in for it.)
inline long double moved_past_bound(long double computed, const rounding_check& check) {
  const long double away = computed >= check.exact ? -1 : 1;
  const long double step = std::max(check.ulp_term, std::numeric_limits<long double>::min());
  return check.exact + away * (check.bound + step);
}

// The check and its mutation test, for a result in a test loop (gtest's SCOPED_TRACE names the case).
inline void expect_rounded_sum(long double computed, const rounding_check& check) {
  EXPECT_TRUE(within_bound(computed, check.exact, check.bound));
  EXPECT_FALSE(within_bound(computed, moved_past_bound(computed, check), check.bound))
      << "mutation survived: the check accepted a reference moved past the bound";
}

}  // namespace ksync::test
