// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync_kernel_timer — where a run's time goes, kernel by kernel: a Kokkos Tools library (loaded by Kokkos at
// initialize from KOKKOS_TOOLS_LIBS, no rebuild of the program) that times every parallel_for, parallel_reduce
// and parallel_scan by its label and, at Kokkos::finalize, prints to stderr each label's total, calls and mean,
// the largest total first:
//
//   export KOKKOS_TOOLS_LIBS=build/cpu/bench/libksync_kernel_timer.so
//   build/cpu/bench/ksync_portable_bench --benchmark_filter='cg_csr/poisson_3d/fused/double/100/'
//
// The host clock from a kernel's begin callback to its end callback. On host backends that is the kernel's
// run; on GPU backends Kokkos fences around every kernel while a tool is loaded that does not say otherwise
// (this one does not), so there too, kernels then run one at a time. A kernel that a solve queues past its
// end (a batch that finds the solve done) is counted with the rest: divide by the iterations, not the calls.
// Not a benchmark: the callbacks and fences cost time; compare labels of one run, not runs with and without.
// The functions below are the Kokkos Tools interface (kokkosp_*), C linkage.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

struct label_total {
  double seconds = 0;
  std::int64_t calls = 0;
};

struct timer_state {
  std::unordered_map<std::string, label_total> totals;
  std::unordered_map<std::uint64_t, std::pair<std::string, clock_type::time_point>> running;
  std::uint64_t next_id = 0;
};

timer_state& state() {
  static timer_state instance;
  return instance;
}

void begin(const char* label, std::uint64_t* id) {
  timer_state& s = state();
  *id = s.next_id++;
  s.running.emplace(*id, std::make_pair(std::string(label), clock_type::now()));
}

void end(std::uint64_t id) {
  const auto now = clock_type::now();
  timer_state& s = state();
  const auto found = s.running.find(id);
  if (found == s.running.end()) return;
  label_total& total = s.totals[found->second.first];
  total.seconds += std::chrono::duration<double>(now - found->second.second).count();
  ++total.calls;
  s.running.erase(found);
}

}  // namespace

extern "C" {

void kokkosp_init_library(int /*load_sequence*/, std::uint64_t /*interface_version*/, std::uint32_t /*device_count*/,
                          void* /*device_info*/) {}

void kokkosp_finalize_library() {
  std::vector<std::pair<std::string, label_total>> rows(state().totals.begin(), state().totals.end());
  std::ranges::sort(rows, [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  std::fprintf(stderr, "ksync_kernel_timer: kernel label, total ms, calls, mean µs a call\n");
  for (const auto& [label, total] : rows) {
    std::fprintf(stderr, "  %-56s %11.1f %9lld %11.2f\n", label.c_str(), total.seconds * 1e3,
                 static_cast<long long>(total.calls), total.seconds * 1e6 / static_cast<double>(total.calls));
  }
}

void kokkosp_begin_parallel_for(const char* label, std::uint32_t /*device*/, std::uint64_t* id) {
  begin(label, id);
}
void kokkosp_end_parallel_for(std::uint64_t id) {
  end(id);
}
void kokkosp_begin_parallel_reduce(const char* label, std::uint32_t /*device*/, std::uint64_t* id) {
  begin(label, id);
}
void kokkosp_end_parallel_reduce(std::uint64_t id) {
  end(id);
}
void kokkosp_begin_parallel_scan(const char* label, std::uint32_t /*device*/, std::uint64_t* id) {
  begin(label, id);
}
void kokkosp_end_parallel_scan(std::uint64_t id) {
  end(id);
}

}  // extern "C"
