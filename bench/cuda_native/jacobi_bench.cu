// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The persistent iterative workload, native forms: `phases` Jacobi sweeps (ksync::cuda::jacobi) of n points
// per call, for every native jacobi_form and n from 2^10 to 2^24. A sample is one call (latency timing:
// from an idle stream to completion, launches included); seconds_per_phase is its time over the phases.
// The portable forms are in bench/jacobi_bench.cpp; tools/sync-tables compares all of them and finds
// the phase size from which relaunching stops mattering.
#include "native.cuh"

#include <ksync/cuda/device/jacobi.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using ksync::bench::time_on_stream;
using ksync::cuda::device_buffer;

void time_jacobi(benchmark::State& state, ksync::jacobi_form form, int block_size, int blocks_per_multiprocessor,
                 int sweeps_per_barrier, int phases) {
  const std::int64_t n = state.range(0);
  std::vector<float> start(static_cast<std::size_t>(n), 0.0f);
  start.front() = 1.0f;
  start.back() = -1.0f;
  device_buffer<float> u(start);
  device_buffer<float> scratch(static_cast<std::size_t>(n));
  const ksync::cuda::jacobi_tuning tuning{.block_size = block_size,
                                          .blocks_per_multiprocessor = blocks_per_multiprocessor,
                                          .sweeps_per_barrier = sweeps_per_barrier};
  time_on_stream(
      state, cudaStreamPerThread, 0,
      [&] { (void)ksync::cuda::jacobi(cudaStreamPerThread, u.data(), scratch.data(), n, phases, form, tuning); },
      ksync::bench::timing::latency);
  if (ksync::cuda::barrier_timeouts(cudaStreamPerThread) != 0)
    ksync::bench::row_failed(state, "a spin barrier timed out");
  ksync::bench::record_phases(state, phases, n);
}

}  // namespace

void ksync::bench::register_jacobi_benchmarks(bool smoke) {
  using ksync::jacobi_form;
  const auto sizes = jacobi_sizes(smoke);
  const int phases = jacobi_phases(smoke);
  for (const auto form : ksync::implementations_of_half<jacobi_form>(ksync::strategy_half::native)) {
    const bool persistent = ksync::runs_in_one_launch(form);
    // Persistent forms: 256-thread blocks at one per multiprocessor and at full occupancy, 1024-thread
    // blocks at one per multiprocessor (fewer blocks arrive at each barrier), and 256-thread blocks at one
    // per multiprocessor with 4 and 16 sweeps between two barriers (tiles in shared memory).
    struct shape {
      int block_size;
      int per_multiprocessor;
      int sweeps_per_barrier;
      const char* suffix;
    };
    const std::vector<shape> shapes = persistent ? std::vector<shape>{{256, 1, 1, "/1_block_per_sm"},
                                                                      {256, 0, 1, "/full_occupancy"},
                                                                      {1024, 1, 1, "/1_block_per_sm_1024"},
                                                                      {256, 1, 4, "/1_block_per_sm_4_sweeps"},
                                                                      {256, 1, 16, "/1_block_per_sm_16_sweeps"}}
                                                 : std::vector<shape>{{256, 1, 1, ""}};
    for (const auto& [block_size, per_multiprocessor, sweeps_per_barrier, suffix] : shapes) {
      const std::string name = "native/jacobi/" + std::string(ksync::to_string(form)) + suffix;
      for (const auto n : sizes) {
        ksync::bench::add_timed(name + "/float", n, time_jacobi, form, block_size, per_multiprocessor,
                                sweeps_per_barrier, phases);
      }
    }
  }
}
