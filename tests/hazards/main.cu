// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync_hazards — runs one case of the hazard catalog (docs/hazards.md) and prints what happened.
//   ksync_hazards list
//   ksync_hazards run CASE hazard|fixed [checked]
// Exit status: 0 when the run finished (for a hazard, whatever it did); 1 when a fixed twin is wrong (a
// mismatch, a detector finding, a timed-out spin or a guard refusal); 2 for usage and CUDA errors;
// 77 without a GPU (CTest: skipped).
#include "catalog.hpp"

#include <ksync/cuda/runtime.hpp>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace {

std::vector<ksync::hazards::hazard_case> all_cases() {
  std::vector<ksync::hazards::hazard_case> cases;
  for (const auto& group : {ksync::hazards::block_cases(), ksync::hazards::warp_cases(), ksync::hazards::grid_cases()})
    cases.insert(cases.end(), group.begin(), group.end());
  return cases;
}

int usage() {
  std::fprintf(stderr, "usage: ksync_hazards list | run CASE hazard|fixed [checked]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const auto cases = all_cases();
  if (args.size() == 1 && args[0] == "list") {
    for (const auto& entry : cases)
      std::printf("%s %s%s\n", entry.id, entry.name, entry.has_checked ? " (ksync detector)" : "");
    return 0;
  }
  if (args.size() < 3 || args.size() > 4 || args[0] != "run" || (args[2] != "hazard" && args[2] != "fixed") ||
      (args.size() == 4 && args[3] != "checked")) {
    return usage();
  }
  const ksync::hazards::hazard_case* selected = nullptr;
  for (const auto& entry : cases)
    if (args[1] == entry.id || args[1] == entry.name) selected = &entry;
  if (selected == nullptr) {
    std::fprintf(stderr, "ksync_hazards: no case '%s' (see `ksync_hazards list`)\n", args[1].c_str());
    return 2;
  }
  if (ksync::cuda::visible_device_count() == 0) {
    std::printf("ksync-skip: needs a CUDA GPU; none is visible to this process\n");
    return 77;
  }
  const bool fixed = args[2] == "fixed";
  const bool checked = args.size() == 4;
  try {
    const auto result =
        selected->run(fixed ? ksync::hazards::variant::fixed : ksync::hazards::variant::hazard, checked);
    std::printf("case %s %s, %s%s\n", selected->id, selected->name, args[2].c_str(), checked ? ", checked" : "");
    std::printf("mismatches: %d of %d\n", result.mismatches, result.checked_elements);
    if (checked) std::printf("ksync-detector: %u violations\n", result.violations);
    if (result.timed_out > 0) std::printf("watchdog: %u blocks timed out\n", result.timed_out);
    if (!result.guard.empty()) std::printf("co-residency guard refused: %s\n", result.guard.c_str());
    if (!result.note.empty()) std::printf("note: %s\n", result.note.c_str());
    const bool clean =
        result.mismatches == 0 && result.violations == 0 && result.timed_out == 0 && result.guard.empty();
    if (fixed && !clean) {
      std::printf("FAILED: the corrected twin is not clean\n");
      return 1;
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ksync_hazards: %s\n", error.what());
    return 2;
  }
}
