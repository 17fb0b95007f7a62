// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// BabelStream's kernels written as index functors, as Kokkos code writes them (`c(i) = a(i)`), for both
// halves' parallel_for benchmarks: the arrays are Kokkos Views (portable) or ksync::bench::device_array
// (native), both indexed with operator(). Every value stays a small binary fraction, so the checks compare
// for equality: a = 1, b = 2, c = 3 before each row, scalar 0.5; each kernel writes the same values on every
// call (Copy c = a = 1; Mul b = s c = 1.5; Add c = a + b = 3; Triad a = b + s c = 3.5).
#pragma once

#include "checks.hpp"

#include <ksync/detail/host_device.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace ksync::bench::stream {

enum class kernel { copy, mul, add, triad };
inline constexpr std::array<kernel, 4> kernels{kernel::copy, kernel::mul, kernel::add, kernel::triad};
inline constexpr double scalar = 0.5;
inline constexpr double initial_a = 1, initial_b = 2, initial_c = 3;

constexpr std::string_view name(kernel k) {
  constexpr std::string_view names[] = {"copy", "mul", "add", "triad"};
  return names[static_cast<int>(k)];
}
// Arrays read plus arrays written, per index.
constexpr int arrays_moved(kernel k) {
  return k == kernel::add || k == kernel::triad ? 3 : 2;
}
// Which array kernel k writes (0 a, 1 b, 2 c) and the value it writes there, from a = 1, b = 2, c = 3.
constexpr int written_array(kernel k) {
  constexpr int arrays[] = {2, 1, 2, 0};
  return arrays[static_cast<int>(k)];
}
constexpr double expected_value(kernel k) {
  constexpr double values[] = {initial_a, scalar * initial_c, initial_a + initial_b, initial_b + scalar * initial_c};
  return values[static_cast<int>(k)];
}

// Kernel K over the arrays a, b, c (scalar s), as one index functor: f(i) over 1-D arrays, f(i, j) over 2-D
// ones (the 2-D rows, stream/2d_<kernel>).
template <kernel K, class Array, class T>
struct kernel_at {
  Array a, b, c;
  T s;
  template <class... Index>
  KSYNC_HOST_DEVICE void operator()(Index... i) const {
    if constexpr (K == kernel::copy) {
      c(i...) = a(i...);
    } else if constexpr (K == kernel::mul) {
      b(i...) = s * c(i...);
    } else if constexpr (K == kernel::add) {
      c(i...) = a(i...) + b(i...);
    } else {
      a(i...) = b(i...) + s * c(i...);
    }
  }
};

// sum += a(i) b(i) (or a(i, j) b(i, j)): 2 n over a = 1, b = 2.
template <class Array, class T>
struct dot {
  Array a, b;
  template <class Index>
  KSYNC_HOST_DEVICE void operator()(Index i, T& sum) const {
    sum += a(i) * b(i);
  }
  template <class Index>
  KSYNC_HOST_DEVICE void operator()(Index i, Index j, T& sum) const {
    sum += a(i, j) * b(i, j);
  }
};

// Calls body(functor) with kernel k's functor over (a, b, c).
template <class Array, class T, class Body>
void with_kernel(kernel k, const Array& a, const Array& b, const Array& c, Body&& body) {
  const T s = static_cast<T>(scalar);
  switch (k) {
    case kernel::copy:
      return body(kernel_at<kernel::copy, Array, T>{a, b, c, s});
    case kernel::mul:
      return body(kernel_at<kernel::mul, Array, T>{a, b, c, s});
    case kernel::add:
      return body(kernel_at<kernel::add, Array, T>{a, b, c, s});
    case kernel::triad:
      return body(kernel_at<kernel::triad, Array, T>{a, b, c, s});
  }
}

// Fails the row unless a dot over a = 1, b = 2 came to 2 n (to 1e-4: float partial sums round past 2^24).
inline void check_dot(benchmark::State& state, double value, std::int64_t n) {
  const double expected = 2.0 * static_cast<double>(n);
  if (std::abs(value - expected) > 1e-4 * expected)
    check_failed(state, "dot = " + std::to_string(value) + ", expected " + std::to_string(expected));
  state.counters["n"] = static_cast<double>(n);
}

template <class T>
constexpr std::string_view type_name() {
  return std::is_same_v<T, float> ? "float" : "double";
}

// A row's name, <source>/stream/<kernel>/<type>[/<variant>]: the report finds the series by it.
inline std::string row(std::string_view source, std::string_view kernel_name, std::string_view type,
                       std::string_view variant = {}) {
  std::string name = std::string(source) + "/stream/" + std::string(kernel_name) + "/" + std::string(type);
  return variant.empty() ? name : name + "/" + std::string(variant);
}

// The 2-D rows' square extents (rows = cols): 2^8 ... 2^14 in steps of 4x in elements on GPUs, up to 2^12 on
// host backends; smoke: two tiny ones.
inline std::vector<std::int64_t> square_extents(bool smoke, bool host_backend) {
  if (smoke) return {32, 128};
  std::vector<std::int64_t> result;
  for (int exponent = 8; exponent <= (host_backend ? 12 : 14); exponent += host_backend ? 2 : 1)
    result.push_back(std::int64_t{1} << exponent);
  return result;
}

// The 2-D Dot's shapes (stream/2d_dot_shape): {elements / cols, cols}, elements = 2^20 on host backends and 2^24
// on GPUs (12 columns hold four fewer), from one column to one row. On host backends (LayoutRight, lines along
// a row) that is lines of 1 to 16 terms (a point's coordinates, a few vectors: tuned folds them whole) and of 32,
// shorter than a thread's share; on GPUs (LayoutLeft, lines down a column) lines of 2^24 / cols terms, and the
// 2-D forms run over the flat index there anyway. Smoke: two small ones.
inline std::vector<std::pair<std::int64_t, std::int64_t>> dot_shapes(bool smoke, bool host_backend) {
  if (smoke) return {{4096, 1}, {64, 64}};
  const std::int64_t elements = std::int64_t{1} << (host_backend ? 20 : 24);
  std::vector<std::pair<std::int64_t, std::int64_t>> result;
  for (const std::int64_t cols : {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8}, std::int64_t{12},
                                  std::int64_t{16}, std::int64_t{32}, std::int64_t{4096}, elements / 32, elements})
    result.emplace_back(elements / cols, cols);
  return result;
}

// Sizes: 2^16 ... 2^30 in steps of 4x on GPUs; 2^16, 2^20 and 2^24 on host backends (three arrays of 2^28
// doubles would take 6 GiB and a minute of page faults a row there); smoke: two tiny sizes.
inline std::vector<std::int64_t> sizes(bool smoke, bool host_backend) {
  if (smoke) return {std::int64_t{1} << 10, std::int64_t{1} << 14};
  std::vector<std::int64_t> result;
  for (int exponent = 16; exponent <= (host_backend ? 24 : 30); exponent += host_backend ? 4 : 2)
    result.push_back(std::int64_t{1} << exponent);
  return result;
}

}  // namespace ksync::bench::stream
