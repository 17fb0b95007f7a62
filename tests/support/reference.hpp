// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Host references and inputs shared by the test suites of both halves.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace ksync::test {

// The sizes at which reductions change shape: empty, one element, around a warp, around a 256-thread
// block, and a large prime.
inline constexpr std::array<std::size_t, 9> reduce_sizes{0, 1, 31, 32, 33, 255, 256, 257, 1'000'003};

// Integers in [0, 7] stored as T: for the sizes above every partial sum is an integer below 2^24, exactly
// representable in float, so any summation order gives the same, exact result and tests compare bitwise.
template <class T>
std::vector<T> small_integers(std::size_t n, std::uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_int_distribution<int> value(0, 7);
  std::vector<T> data(n);
  for (auto& x : data)
    x = static_cast<T>(value(engine));
  return data;
}

// Values in [-1, 1): sums that round, for the error-bound tests.
template <class T>
std::vector<T> signed_fractions(std::size_t n, std::uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<T> data(n);
  for (auto& x : data)
    x = static_cast<T>(value(engine));
  return data;
}

template <class T>
long double exact_sum(const std::vector<T>& data) {
  long double sum = 0;
  for (const auto& x : data)
    sum += static_cast<long double>(x);
  return sum;
}

// A bound on the rounding error of any summation order of n values of type T (Higham, "Accuracy and
// Stability of Numerical Algorithms", eq. 4.4): |computed - exact| <= gamma(n-1) * sum |x_i|, with
// gamma(k) = k u / (1 - k u) and u the unit roundoff of T.
template <class T>
long double sum_error_bound(const std::vector<T>& data) {
  long double magnitude = 0;
  for (const auto& x : data)
    magnitude += std::fabs(static_cast<long double>(x));
  const long double u = std::numeric_limits<T>::epsilon() / 2;
  const long double k = data.empty() ? 0 : static_cast<long double>(data.size() - 1);
  return k * u / (1 - k * u) * magnitude;
}

}  // namespace ksync::test
