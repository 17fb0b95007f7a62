// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Result checks every benchmark binary shares. A row whose result is wrong is not a measurement: it is marked
// with an error that starts "wrong result:" (tools/report-md lists failed rows at the top of the report) and
// the suite exits 1 (suite_exit_status), so the bench-smoke tests and `tools/ksync bench` fail; so does a row
// that could not run (a spin barrier that timed out, a vendor call that failed: row_failed). A request the
// device refuses (e.g. a cluster size it does not take) is not a wrong result: `refused` marks the row
// "refused:" and the suite still passes.
#pragma once

#include <ksync/stencil.hpp>  // KSYNC_HOST_DEVICE
#include <ksync/types.hpp>

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

namespace ksync::bench {

inline std::atomic<int>& failed_rows() {
  static std::atomic<int> rows{0};
  return rows;
}

// Marks the row failed (the suite will exit 1): `message` says what went wrong.
inline void row_failed(benchmark::State& state, const std::string& message) {
  ++failed_rows();
  state.SkipWithError(message);
}

// Marks the row failed for a wrong result: `what` says which result and how it differs.
inline void check_failed(benchmark::State& state, const std::string& what) {
  row_failed(state, "wrong result: " + what);
}

// Marks the row refused by the device (not a failure of the suite): `why` is the refusal's message.
inline void refused(benchmark::State& state, const std::string& why) {
  state.SkipWithError("refused: " + why);
}

// main's return value: 1, with a line on stderr, when any row failed.
inline int suite_exit_status(const char* suite) {
  const int rows = failed_rows().load();
  if (rows == 0) return 0;
  std::fprintf(stderr, "%s: %d benchmark row(s) failed (a wrong result or a failed call; see their error messages)\n",
               suite, rows);
  return 1;
}

// The input every suite uses, x[i] = i % 8 (small integers, not zeros: zeros hide unwritten data and can run
// faster than real data), and the exact sum of its first n elements.
KSYNC_HOST_DEVICE constexpr float pattern_value(std::int64_t i) {
  return static_cast<float>(i % 8);
}
KSYNC_HOST_DEVICE constexpr double pattern_sum(std::int64_t n) {
  const std::int64_t full_periods = n / 8;  // each period 0..7 sums to 28
  const auto rest = static_cast<double>(n % 8);
  return 28.0 * static_cast<double>(full_periods) + 0.5 * rest * (rest - 1.0);
}

// What element i holds after each checked operation on the pattern. Every value is a small integer, exact
// in float, so the checks compare for equality.
struct twice_pattern {  // the transform y = 2x
  KSYNC_HOST_DEVICE float operator()(std::int64_t i) const { return 2.0f * pattern_value(i); }
};
struct reversed_pattern {  // reverse, out of place or in place once
  std::int64_t n;
  KSYNC_HOST_DEVICE float operator()(std::int64_t i) const { return pattern_value(n - 1 - i); }
};
struct pattern_segment_sums {  // segment s holds the sum of its `segment` elements (the last one may be short)
  std::int64_t n;
  std::int64_t segment;
  KSYNC_HOST_DEVICE float operator()(std::int64_t s) const {
    const std::int64_t end = (s + 1) * segment < n ? (s + 1) * segment : n;
    return static_cast<float>(pattern_sum(end) - pattern_sum(s * segment));
  }
};
struct all_true_summaries {  // segment predicates over flags that are all 1
  std::int64_t n;
  std::int64_t segment;
  KSYNC_HOST_DEVICE predicate_summary operator()(std::int64_t s) const {
    const std::int64_t count = n - s * segment < segment ? n - s * segment : segment;
    return {.count = static_cast<std::int32_t>(count), .all = 1, .any = 1};
  }
};

KSYNC_HOST_DEVICE inline bool same(float a, float b) {
  return a == b;
}
KSYNC_HOST_DEVICE inline bool same(double a, double b) {
  return a == b;
}
KSYNC_HOST_DEVICE inline bool same(const predicate_summary& a, const predicate_summary& b) {
  return a.count == b.count && a.all == b.all && a.any == b.any;
}

// Fails the row when `mismatches` of the `n` elements of `what` differ from the reference.
inline void check_mismatches(benchmark::State& state, std::int64_t mismatches, std::int64_t n,
                             const std::string& what) {
  if (mismatches != 0)
    check_failed(state, what + ": " + std::to_string(mismatches) + " of " + std::to_string(n) +
                            " elements differ from the reference");
}

// Host-side pipeline results: every out[i] must be 2 * in[i].
inline void check_twice(benchmark::State& state, std::span<const float> in, std::span<const float> out) {
  std::int64_t mismatches = 0;
  for (std::size_t i = 0; i < in.size(); ++i)
    mismatches += out[i] != 2.0f * in[i] ? 1 : 0;
  check_mismatches(state, mismatches, static_cast<std::int64_t>(in.size()), "out = 2 in");
}

}  // namespace ksync::bench
