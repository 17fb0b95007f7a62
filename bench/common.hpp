// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What every ksync benchmark binary shares: the --ksync_smoke flag and the problem sizes.
#pragma once

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ksync::bench {

// Removes --ksync_smoke from the command line (Google Benchmark rejects flags it does not know) and
// reports whether it was there.
inline bool take_smoke_flag(int& argc, char** argv) {
  bool smoke = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--ksync_smoke") == 0) {
      smoke = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return smoke;
}

// Reduction sizes: 2^20 (launch cost dominates), 2^24 (in between), 2^28 (1 GiB of floats: bandwidth).
inline std::vector<std::int64_t> reduce_sizes(bool smoke) {
  if (smoke) return {std::int64_t{1} << 10, std::int64_t{1} << 14};
  return {std::int64_t{1} << 20, std::int64_t{1} << 24, std::int64_t{1} << 28};
}

// Block-scope patterns: 2^26 elements (256 MiB of floats, several times the L2 of current GPUs).
inline std::vector<std::int64_t> block_sizes(bool smoke) {
  if (smoke) return {std::int64_t{1} << 12};
  return {std::int64_t{1} << 26};
}

// The inputs every suite reduces: x[i] = i % 8 (small integers, not zeros: zeros hide unwritten data and
// can run faster than real data). Their exact sum, to check each benchmark's result.
inline double pattern_sum(std::int64_t n) {
  const std::int64_t full_periods = n / 8;  // each period 0..7 sums to 28
  const auto rest = static_cast<double>(n % 8);
  return 28.0 * static_cast<double>(full_periods) + 0.5 * rest * (rest - 1.0);
}

// Marks the benchmark failed when `sum` is not the pattern's sum (float sums of 2^28 values round: 1e-3).
inline void check_pattern_sum(benchmark::State& state, double sum, std::int64_t n) {
  const double expected = pattern_sum(n);
  if (std::fabs(sum - expected) > 1e-3 * expected) state.SkipWithError("wrong sum");
}

// Each suite registers its benchmarks for the sizes `smoke` selects; each benchmark binary (portable,
// native) defines these for its own half.
void register_reduce_benchmarks(bool smoke);
void register_block_benchmarks(bool smoke);

}  // namespace ksync::bench
