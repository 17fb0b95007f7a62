// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The shared core of the 2-D index forms (core/ksync/detail/index_pair.hpp): the division by an invariant
// divisor against the division operator, and the split of a flat index into (i, j) in each order. Plain C++,
// on the host.
#include "support/errors.hpp"

#include <ksync/detail/index_pair.hpp>
#include <ksync/detail/invariant_divisor.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace ksync::test {
namespace {

template <class Index>
std::vector<Index> divisors_to_check() {
  std::vector<Index> divisors;
  for (Index d = 1; d <= 1'100; ++d)
    divisors.push_back(d);
  for (int bits = 10; bits < 8 * static_cast<int>(sizeof(Index)) - 1; ++bits) {
    const Index power = Index{1} << bits;
    for (const Index d : {power - 1, power, power + 1})
      divisors.push_back(d);
  }
  const Index largest = std::numeric_limits<Index>::max();
  for (const Index d : {largest, largest - 1, largest / 2, largest / 3, Index{46'341}, Index{65'537}})
    divisors.push_back(d);
  std::mt19937_64 random(20261207);
  std::uniform_int_distribution<Index> any(1, largest);
  for (int k = 0; k < 2'000; ++k)
    divisors.push_back(any(random));
  return divisors;
}

// Every divisor above, against numerators at the edges (0, around multiples of d, the largest Index) and
// random ones.
template <class Index>
void expect_quotients_of_the_division_operator() {
  const Index largest = std::numeric_limits<Index>::max();
  std::mt19937_64 random(7);
  std::uniform_int_distribution<Index> any(0, largest);
  std::int64_t wrong = 0;
  for (const Index d : divisors_to_check<Index>()) {
    const ksync::detail::invariant_divisor<Index> divisor(d);
    std::vector<Index> numerators{
        0, 1, d - 1, d, largest, largest - 1, largest - largest % d, largest - largest % d - 1};
    if (d <= largest / 3) numerators.insert(numerators.end(), {2 * d - 1, 2 * d, 3 * d - 1, 3 * d});
    for (int k = 0; k < 64; ++k)
      numerators.push_back(any(random));
    for (const Index x : numerators) {
      if (x < 0) continue;
      if (divisor.quotient(x) != x / d) {
        ++wrong;
        ADD_FAILURE() << x << " / " << d << ": " << divisor.quotient(x) << " (expected " << x / d << ")";
        if (wrong > 10) return;
      }
    }
  }
  EXPECT_EQ(wrong, 0);
}

TEST(InvariantDivisor, Int32QuotientsAreTheDivisionOperators) {
  expect_quotients_of_the_division_operator<std::int32_t>();
}

TEST(InvariantDivisor, Int64QuotientsAreTheDivisionOperators) {
  expect_quotients_of_the_division_operator<std::int64_t>();
}

TEST(InvariantDivisor, ANonPositiveDivisorIsRefused) {
  EXPECT_TRUE(refuses([] { ksync::detail::invariant_divisor<std::int32_t>(0); },
                      "ksync::detail::invariant_divisor: divisor = 0 is not positive"));
  EXPECT_TRUE(refuses([] { ksync::detail::invariant_divisor<std::int64_t>(-5); },
                      "ksync::detail::invariant_divisor: divisor = -5 is not positive"));
}

// The flat index k walks the fast index first: left, i = k % rows, j = k / rows; right, i = k / cols,
// j = k % cols. Every pair once, in that order.
using pairs = std::vector<std::pair<std::int64_t, std::int64_t>>;

// Records each (i, j) it is called with (a host functor: not a constexpr lambda, which a CUDA compiler would
// refuse to see called from the adaptor's host-and-device operator).
struct record_pairs {
  pairs* seen;
  void operator()(std::int64_t i, std::int64_t j) const { seen->emplace_back(i, j); }
};

template <iterate Order>
void expect_pairs_in_order(std::int64_t rows, std::int64_t cols) {
  pairs seen;
  const auto g = ksync::detail::make_index_pair_for<Order>(record_pairs{&seen}, rows, cols);
  for (std::int64_t k = 0; k < rows * cols; ++k)
    g(k);
  pairs expected;
  if constexpr (Order == iterate::left) {
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i)
        expected.emplace_back(i, j);
  } else {
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        expected.emplace_back(i, j);
  }
  EXPECT_EQ(seen, expected) << "rows = " << rows << ", cols = " << cols;
}

TEST(IndexPair, TheFlatIndexStepsThroughTheFastIndexFirst) {
  for (const auto& [rows, cols] :
       std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 1}, {1, 9}, {9, 1}, {3, 7}, {7, 3}, {64, 33}}) {
    expect_pairs_in_order<iterate::left>(rows, cols);
    expect_pairs_in_order<iterate::right>(rows, cols);
  }
}

TEST(IndexPair, ExtentsWhoseProductDoesNotFitTheIndexAreRefused) {
  EXPECT_TRUE(
      refuses([] { (void)ksync::detail::checked_pair_count<std::int32_t>("where", 50'000, 50'000); },
              "where: rows x cols = 50000 x 50000 does not fit an std::int32_t index: pass std::int64_t extents"));
  EXPECT_TRUE(refuses(
      [] {
        (void)ksync::detail::checked_pair_count<std::int64_t>("where", std::int64_t{1} << 32, std::int64_t{1} << 31);
      },
      "where: rows x cols = 4294967296 x 2147483648 does not fit an std::int64_t index"));
  EXPECT_EQ(ksync::detail::checked_pair_count<std::int32_t>("where", 46'340, 46'340), 46'340 * 46'340);
  EXPECT_EQ(ksync::detail::checked_pair_count<std::int32_t>("where", 0, 5), 0);
}

}  // namespace
}  // namespace ksync::test
