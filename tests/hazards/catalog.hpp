// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The hazard catalog (docs/hazards.md): each synchronization mistake the teaching documents warn about
// (docs/glossary.md), as a small kernel beside its corrected twin. The runner (main.cu) runs one case;
// tests/hazards/expect.cmake runs it under the check that should catch it. Kernels are compiled twice where
// ksync's own detectors apply: with plain barriers (for compute-sanitizer) and `checked`
// (block/checked_barrier.cuh, warp/checked_sync.cuh).
#pragma once

#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>

#include <string>
#include <vector>

namespace ksync::hazards {

enum class variant { hazard, fixed };

struct outcome {
  int checked_elements = 0;     // results compared with the host reference
  int mismatches = 0;           // of them, how many differ
  unsigned int violations = 0;  // ksync detector findings (checked runs only)
  unsigned int timed_out = 0;   // blocks whose bounded spin gave up
  std::string guard;            // the co-residency guard's refusal, if it refused
  std::string note;             // anything else the case measured
};

struct hazard_case {
  const char* id;    // "01" ... "11", as in docs/hazards.md
  const char* name;  // short identifier
  bool has_checked;  // whether a ksync detector applies (the `checked` run)
  outcome (*run)(variant, bool checked);
};

std::vector<hazard_case> block_cases();
std::vector<hazard_case> warp_cases();
std::vector<hazard_case> grid_cases();

// Compares a device result with the expected host values.
inline void compare(outcome& result, const std::vector<int>& actual, const std::vector<int>& expected) {
  result.checked_elements = static_cast<int>(expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    result.mismatches += actual[i] != expected[i] ? 1 : 0;
}

inline std::vector<int> iota_values(int count, int first = 1) {
  std::vector<int> values(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    values[static_cast<std::size_t>(i)] = first + i;
  return values;
}

// One launch of a kernel taking (in, out, violations), then the outcome against `expected`.
template <class Launch>
outcome run_and_compare(const std::vector<int>& input, const std::vector<int>& expected, Launch launch) {
  ksync::cuda::device_buffer<int> in(input);
  ksync::cuda::device_buffer<int> out(expected.size());
  out.copy_from(std::vector<int>(expected.size(), -1));
  ksync::cuda::device_buffer<unsigned int> violations(1);
  violations.copy_from({0u});
  launch(in.data(), out.data(), violations.data());
  KSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  outcome result;
  compare(result, out.to_host(), expected);
  result.violations = violations.to_host()[0];
  return result;
}

// Runs Kernel<Fixed, Checked>(in, out, violations) on one block of `threads`, the instantiation picked by
// `which` and `checked`; pass the four as KSYNC_HAZARD_VARIANTS(kernel).
template <auto HazardPlain, auto HazardChecked, auto FixedPlain, auto FixedChecked>
outcome run_variant(variant which, bool checked, int threads, const std::vector<int>& input,
                    const std::vector<int>& expected) {
  return run_and_compare(input, expected, [&](const int* in, int* out, unsigned int* violations) {
    const bool fixed = which == variant::fixed;
    const auto kernel = fixed ? (checked ? FixedChecked : FixedPlain) : (checked ? HazardChecked : HazardPlain);
    kernel<<<1, threads>>>(in, out, violations);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::hazards");
  });
}

}  // namespace ksync::hazards

#define KSYNC_HAZARD_VARIANTS(kernel) kernel<false, false>, kernel<false, true>, kernel<true, false>, kernel<true, true>
