// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Host references and inputs shared by the test suites of both halves.
#pragma once

#include <ksync/stencil.hpp>
#include <ksync/types.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace ksync::test {

// Sizes where block- and warp-scope patterns change shape: empty, one, around a warp, two warps, the
// participation-bound example's 100, a 128-thread block, a 256-element tile, primes; the large prime
// 10'000'019 last.
inline constexpr std::array<std::size_t, 22> boundary_sizes{
    0, 1, 31, 32, 33, 63, 64, 65, 99, 100, 101, 127, 128, 129, 255, 256, 257, 509, 1009, 4099, 65537, 10'000'019};

// Sizes above KSYNC_TEST_MAX_SIZE (when set) are left out: the compute-sanitizer runs set it, since the
// tools slow kernels down by orders of magnitude.
inline bool size_enabled(std::size_t n) {
  const char* limit = std::getenv("KSYNC_TEST_MAX_SIZE");
  return limit == nullptr || n <= std::stoull(limit);
}

// Block (and segment, tile) sizes the block-scope tests sweep: ksync::cuda::segment_reduce_sizes.
inline constexpr std::array<int, 6> block_sizes{32, 96, 100, 128, 256, 1024};

// Values that differ from their neighbours (7 is coprime to 2^24, so the first 2^24 are distinct) and are
// exact in every tested type: a misplaced element always shows.
template <class T>
std::vector<T> distinct_values(std::size_t n, std::uint32_t seed) {
  std::vector<T> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = static_cast<T>((i * 7 + seed) % (std::size_t{1} << 24));
  return data;
}

// n values drawn from `distribution` by a generator seeded with `seed`, stored as T: every random input
// below, reproducible from its seed.
template <class T, class Distribution>
std::vector<T> drawn(std::size_t n, std::uint32_t seed, Distribution distribution) {
  std::mt19937 engine(seed);
  std::vector<T> data(n);
  for (auto& x : data)
    x = static_cast<T>(distribution(engine));
  return data;
}

// Integers in [-bound, bound] stored as T: sums of the tested sizes stay exact in float.
template <class T>
std::vector<T> signed_integers(std::size_t n, std::uint32_t seed, int bound) {
  return drawn<T>(n, seed, std::uniform_int_distribution<int>(-bound, bound));
}

template <class T>
std::vector<T> reversed(std::vector<T> data) {
  std::reverse(data.begin(), data.end());
  return data;
}

template <class T>
std::vector<T> segment_reduce_reference(const std::vector<T>& data, int segment_size, reduce_op op) {
  std::vector<T> out;
  for (std::size_t begin = 0; begin < data.size(); begin += static_cast<std::size_t>(segment_size)) {
    const std::size_t end = std::min(data.size(), begin + static_cast<std::size_t>(segment_size));
    T acc = data[begin];
    for (std::size_t i = begin + 1; i < end; ++i) {
      acc = op == reduce_op::sum   ? static_cast<T>(acc + data[i])
            : op == reduce_op::min ? std::min(acc, data[i])
                                   : std::max(acc, data[i]);
    }
    out.push_back(acc);
  }
  return out;
}

// The cases both halves' segment_reduce tests run: every enabled boundary size n, its data signed integers
// in [-1000, 1000] made once by upload(host) (a View or a device buffer), every segment size of `segments`
// (only 256 past 100,000 elements), and sum, min and max: check(data, n, segment, op, expected), `expected`
// the host reference of that case.
template <class T, class Segments, class Upload, class Check>
void for_each_segment_reduce_case(const Segments& segments, Upload&& upload, Check&& check) {
  for (const auto n : boundary_sizes) {
    if (!size_enabled(n)) continue;
    const auto host = signed_integers<T>(n, 7u + static_cast<std::uint32_t>(n), 1000);
    const auto data = upload(host);
    for (const int segment : segments) {
      if (n > 100'000 && segment != 256) continue;
      for (const auto op : {reduce_op::sum, reduce_op::min, reduce_op::max})
        check(data, n, segment, op, segment_reduce_reference(host, segment, op));
    }
  }
}

inline std::vector<predicate_summary> segment_predicates_reference(const std::vector<std::int32_t>& flags,
                                                                   int segment_size) {
  std::vector<predicate_summary> out;
  for (std::size_t begin = 0; begin < flags.size(); begin += static_cast<std::size_t>(segment_size)) {
    const std::size_t end = std::min(flags.size(), begin + static_cast<std::size_t>(segment_size));
    predicate_summary summary{.count = 0, .all = 1, .any = 0};
    for (std::size_t i = begin; i < end; ++i) {
      const int holds = flags[i] != 0 ? 1 : 0;
      summary.count += holds;
      summary.all = summary.all && holds;
      summary.any = summary.any || holds;
    }
    out.push_back(summary);
  }
  return out;
}

// Flags with every segment kind present: all set, none set, and mixed (about one in three set).
inline std::vector<std::int32_t> mixed_flags(std::size_t n, int segment_size, std::uint32_t seed) {
  std::mt19937 engine(seed);
  std::vector<std::int32_t> flags(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t segment = i / static_cast<std::size_t>(segment_size);
    flags[i] = segment % 3 == 0 ? 1 : segment % 3 == 1 ? 0 : static_cast<std::int32_t>(engine() % 3 == 0) * 5;
  }
  return flags;
}

// The sizes at which reductions change shape: empty, one element, around a warp, around a 256-thread
// block, and a large prime.
inline constexpr std::array<std::size_t, 9> reduce_sizes{0, 1, 31, 32, 33, 255, 256, 257, 1'000'003};

// Device-wide reductions: the sizes above, around a 256-thread block of 16 items (4096) and 4 packs of
// four per thread (16384), primes, and 10^8 + 7. GPU suites add sizes around their device's grid.
inline constexpr std::array<std::size_t, 17> device_reduce_sizes{
    0, 1, 31, 32, 33, 255, 256, 257, 4095, 4096, 4097, 16383, 16385, 65537, 1'000'003, 10'000'019, 100'000'007};

// A cheap, reproducible hash of (i, seed) (splitmix64's finalizer): inputs of 10^8 elements in well under
// a second.
inline std::uint64_t mix(std::uint64_t i, std::uint64_t seed) {
  std::uint64_t z = i + seed * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Inputs on which every reduction is exact in every tested type, whatever the summation order: small
// integers, dense ([0, 7]) up to 2^20 elements and sparse (one element in 64 in [1, 7], the rest 0)
// beyond, so that every partial sum, even after a transform like 2x - 3, stays an integer below 2^24.
// One -3 and one 11 at hashed places: min and max must find them.
template <class T>
std::vector<T> exact_reduction_input(std::size_t n, std::uint32_t seed) {
  std::vector<T> data(n);
  const bool dense = n <= (std::size_t{1} << 20);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t h = mix(i, seed);
    data[i] = static_cast<T>(dense ? h % 8 : (h % 64 == 0 ? 1 + (h >> 8) % 7 : 0));
  }
  if (n > 0) {
    data[mix(n, seed) % n] = static_cast<T>(-3);
    data[mix(n + 1, seed) % n] = static_cast<T>(11);
  }
  return data;
}

// The exact op over f(data[i]), as T (exact for exact_reduction_input and the transforms the tests use).
template <class T, class Transform>
T reduction_reference(const std::vector<T>& data, reduce_op op, Transform f) {
  if (op == reduce_op::sum) {
    long double sum = 0;
    for (const auto& x : data)
      sum += static_cast<long double>(f(x));
    return static_cast<T>(sum);
  }
  // The identities: +-infinity for floating types, max() / lowest() for integers (as Kokkos has them).
  constexpr bool infinite = std::numeric_limits<T>::has_infinity;
  const T largest = infinite ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  const T smallest = infinite ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  T acc = op == reduce_op::min ? largest : smallest;
  for (const auto& x : data)
    acc = op == reduce_op::min ? std::min<T>(acc, f(x)) : std::max<T>(acc, f(x));
  return acc;
}

template <class T>
T reduction_reference(const std::vector<T>& data, reduce_op op) {
  return reduction_reference(data, op, [](T x) { return x; });
}

template <class T>
T dot_reference(const std::vector<T>& x, const std::vector<T>& y) {
  long double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    sum += static_cast<long double>(x[i]) * static_cast<long double>(y[i]);
  return static_cast<T>(sum);
}

// The second factor of the dot tests: 0 or 1, so that x[i] * y[i] keeps exact_reduction_input's bounds.
template <class T>
std::vector<T> zero_one_input(std::size_t n, std::uint32_t seed) {
  std::vector<T> data(n);
  for (std::size_t i = 0; i < n; ++i)
    data[i] = static_cast<T>(mix(i, seed) % 2);
  return data;
}

inline constexpr std::array<reduce_op, 3> all_reduce_ops{reduce_op::sum, reduce_op::min, reduce_op::max};

// Integers in [0, 7] stored as T: for the sizes above every partial sum is an integer below 2^24, exactly
// representable in float, so any summation order gives the same, exact result and tests compare bitwise.
template <class T>
std::vector<T> small_integers(std::size_t n, std::uint32_t seed) {
  return drawn<T>(n, seed, std::uniform_int_distribution<int>(0, 7));
}

// Values in [-1, 1): sums that round, for the error-bound tests.
template <class T>
std::vector<T> signed_fractions(std::size_t n, std::uint32_t seed) {
  return drawn<T>(n, seed, std::uniform_real_distribution<double>(-1.0, 1.0));
}

template <class T>
long double exact_sum(const std::vector<T>& data) {
  long double sum = 0;
  for (const auto& x : data)
    sum += static_cast<long double>(x);
  return sum;
}

// `phases` Jacobi sweeps of `u` on the host (ksync/stencil.hpp's arithmetic): the result both halves must
// match bit for bit. Returns the final state.
template <class T>
std::vector<T> jacobi_reference(std::vector<T> u, int phases) {
  std::vector<T> next(u.size());
  const std::size_t n = u.size();
  for (int phase = 0; phase < phases; ++phase) {
    for (std::size_t i = 0; i < n; ++i)
      next[i] = (i == 0 || i + 1 == n) ? u[i] : jacobi_update(u[i - 1], u[i + 1]);
    std::swap(u, next);
  }
  return u;
}

// A Jacobi start: both ends fixed at 1 and -1, random interior values in [0, 1) with full mantissas, so
// every rounding of every sweep shows.
template <class T>
std::vector<T> jacobi_start(std::size_t n, std::uint32_t seed) {
  std::vector<T> u = drawn<T>(n, seed, std::uniform_real_distribution<T>(0, 1));
  if (n > 0) u.front() = 1;
  if (n > 1) u.back() = -1;
  return u;
}

// Jacobi sizes: empty, one and two points (no interior), small, block +-1 around 256, a prime, past 2^20.
inline constexpr std::array<std::size_t, 10> jacobi_sizes{0, 1, 2, 3, 255, 256, 257, 4099, 65537, 1'048'579};

}  // namespace ksync::test
