// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The host CG both halves' solver tests compare with: the same recurrence in double, on the built-in
// Poisson operator or a shifted one (A + shift I, the user operator of the tests), and the true residual
// of a solution.
#pragma once

#include <ksync/cg_types.hpp>
#include <ksync/stencil.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

namespace ksync::test {

// Row i of (A + shift I) v for the m x m Poisson operator A.
inline double shifted_poisson_row(const std::vector<double>& v, int m, int i, double shift) {
  const auto at = [&](int j) { return v[static_cast<std::size_t>(j)]; };
  return ksync::poisson_2d_apply<double>(at, m, i) + shift * at(i);
}

struct cg_reference_result {
  int iterations = 0;
  double relative_residual = 0;
  bool converged = false;
  std::vector<double> x;
  std::vector<double> history;
};

// Preconditioned CG in double from x0: the recurrence ksync runs, stopping at ||r|| / ||b|| <= tolerance or
// max_iterations, both norms in M^-1 (cg_preconditioner, ksync/cg_types.hpp). apply(v, y) sets y = A v and
// precondition(v, z) sets z = M^-1 v, for vectors of n entries.
template <class T, class Apply, class Precondition>
cg_reference_result host_pcg_with(const Apply& apply, const Precondition& precondition, std::size_t n,
                                  const std::vector<T>& b_in, const std::vector<T>& x0, double tolerance,
                                  int max_iterations) {
  const std::vector<double> b(b_in.begin(), b_in.end());
  cg_reference_result out;
  out.x.assign(x0.begin(), x0.end());
  const auto dot = [&](const std::vector<double>& u, const std::vector<double>& v) {
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i)
      sum += u[i] * v[i];
    return sum;
  };
  std::vector<double> r(n), z(n), p(n, 0.0), ap(n);
  apply(out.x, ap);
  for (std::size_t i = 0; i < n; ++i)
    r[i] = b[i] - ap[i];
  precondition(b, z);
  const double b_norm = std::sqrt(dot(b, z));
  precondition(r, z);
  double rho = dot(r, z);
  if (b_norm == 0) {
    out.x.assign(n, 0.0);
    out.converged = true;
    out.history = {0.0};
    return out;
  }
  double relative = std::sqrt(rho) / b_norm;
  out.history.push_back(relative);
  double beta = 0;
  while (relative > tolerance && out.iterations < max_iterations) {
    for (std::size_t i = 0; i < n; ++i)
      p[i] = z[i] + beta * p[i];
    apply(p, ap);
    const double alpha = rho / dot(p, ap);
    for (std::size_t i = 0; i < n; ++i) {
      out.x[i] += alpha * p[i];
      r[i] -= alpha * ap[i];
    }
    precondition(r, z);
    const double rho_next = dot(r, z);
    beta = rho_next / rho;
    rho = rho_next;
    relative = std::sqrt(rho) / b_norm;
    out.history.push_back(relative);
    ++out.iterations;
  }
  out.relative_residual = relative;
  out.converged = relative <= tolerance;
  return out;
}

// The same with M^-1 = diag(weight) (all ones: plain CG); weight has one entry per unknown.
template <class T, class Apply>
cg_reference_result host_pcg(const Apply& apply, const std::vector<double>& weight, const std::vector<T>& b,
                             const std::vector<T>& x0, double tolerance, int max_iterations) {
  const auto precondition = [&](const std::vector<double>& v, std::vector<double>& z) {
    for (std::size_t i = 0; i < v.size(); ++i)
      z[i] = weight[i] * v[i];
  };
  return host_pcg_with(apply, precondition, weight.size(), b, x0, tolerance, max_iterations);
}

// CG in double from x0 on (A + shift I) x = b for the m x m Poisson operator A.
template <class T>
cg_reference_result host_cg(int m, const std::vector<T>& b, const std::vector<T>& x0, double tolerance,
                            int max_iterations, double shift = 0.0) {
  const auto n = static_cast<std::size_t>(m) * static_cast<std::size_t>(m);
  const auto apply = [&](const std::vector<double>& v, std::vector<double>& y) {
    for (std::size_t i = 0; i < n; ++i)
      y[i] = shifted_poisson_row(v, m, static_cast<int>(i), shift);
  };
  return host_pcg(apply, std::vector<double>(n, 1.0), b, x0, tolerance, max_iterations);
}

// ||b - (A + shift I) x|| / ||b||, in double.
template <class T>
double true_relative_residual(int m, const std::vector<T>& b, const std::vector<T>& x, double shift = 0.0) {
  const std::vector<double> xd(x.begin(), x.end());
  double residual = 0;
  double scale = 0;
  for (std::size_t i = 0; i < xd.size(); ++i) {
    const double r = static_cast<double>(b[i]) - shifted_poisson_row(xd, m, static_cast<int>(i), shift);
    residual += r * r;
    scale += static_cast<double>(b[i]) * static_cast<double>(b[i]);
  }
  return scale > 0 ? std::sqrt(residual / scale) : std::sqrt(residual);
}

// A right-hand side of m * m values in [-1, 1], the same for a seed on every machine.
template <class T>
std::vector<T> cg_right_hand_side(int m, unsigned int seed) {
  std::mt19937 generator(seed);
  std::vector<T> b(static_cast<std::size_t>(m) * static_cast<std::size_t>(m));
  for (auto& value : b)
    value = static_cast<T>(static_cast<double>(generator()) / static_cast<double>(std::mt19937::max()) * 2.0 - 1.0);
  return b;
}

// The grids the solver tests run: the smallest ones, non-powers of two, and a few hundred to a few thousand
// unknowns (larger grids take hundreds of iterations, which the CPU CI pays for in every form).
inline constexpr int cg_grid_sizes[] = {1, 2, 3, 7, 16, 33, 50};

// Whether a grid of m x m is small enough for this run: a solve costs about m^3 (iterations grow with m),
// and the compute-sanitizer runs cap it with KSYNC_TEST_MAX_SIZE (racecheck slows CG by about 200x).
inline bool cg_grid_enabled(int m) {
  const char* limit = std::getenv("KSYNC_TEST_MAX_SIZE");
  return limit == nullptr || static_cast<double>(m) * m * m <= std::strtod(limit, nullptr);
}

// Tolerances each value type reaches from the recurrence on those grids.
template <class T>
constexpr double cg_tolerance() {
  return sizeof(T) == sizeof(float) ? 1e-4 : 1e-9;
}

// Options of a solve, spelled in one call (the reuse tests change one at a time).
inline ksync::cg_options cg_options_with(double tolerance, int max_iterations, int check_every,
                                         bool record_history = false) {
  ksync::cg_options options;
  options.tolerance = tolerance;
  options.max_iterations = max_iterations;
  options.check_every = check_every;
  options.record_history = record_history;
  return options;
}

// max |got - want| over max |want|: how far a reused solver's x is from a fresh one's.
template <class T>
double relative_max_difference(const std::vector<T>& got, const std::vector<T>& want) {
  double largest = 0.0;
  double off = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    largest = std::max(largest, std::abs(static_cast<double>(want[i])));
    off = std::max(off, std::abs(static_cast<double>(got[i]) - static_cast<double>(want[i])));
  }
  return largest > 0 ? off / largest : off;
}

}  // namespace ksync::test
