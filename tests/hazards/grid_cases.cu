// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Grid-scope hazards (docs/hazards.md): 09 a grid barrier with more blocks than can be resident, 10 a flag
// without memory ordering used to publish data.
#include "catalog.hpp"
#include "publish_flag.cuh"

#include <ksync/cuda/device/occupancy.hpp>
#include <ksync/cuda/grid/barrier.cuh>
#include <ksync/cuda/runtime.hpp>

#include <cstdint>
#include <stdexcept>

namespace ksync::hazards {
namespace {

// 09 — each block writes its slot, waits at the spin barrier, then reads its neighbour's slot. The large
// dynamic shared memory request (unused) leaves room for one block per multiprocessor, so the GPU has as
// few slots as it has multiprocessors (the hazard's grid has one block more).
__global__ void neighbour_exchange(ksync::cuda::spin_barrier_state* state, std::uint64_t timeout_ns, int* slots,
                                   int* out) {
  if (threadIdx.x == 0) slots[blockIdx.x] = static_cast<int>(blockIdx.x) + 1;
  // Participation: every thread of every block of the grid (all must be resident: the case's point). Data:
  // slots[0, gridDim.x). Publishes every block's slot to every other block.
  if (!ksync::cuda::spin_barrier_sync(state, timeout_ns)) return;
  if (threadIdx.x == 0) out[blockIdx.x] = slots[(blockIdx.x + 1) % gridDim.x];
}

outcome run_oversubscribed_grid(variant which, bool /*checked*/) {
  constexpr int threads = 128;
  constexpr std::size_t shared_bytes = 150 * 1024;  // more than half a multiprocessor's 228 KiB
  constexpr std::uint64_t timeout_ns = 20'000'000;  // 20 ms
  KSYNC_CUDA_CHECK(cudaFuncSetAttribute(neighbour_exchange, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(shared_bytes)));
  int device = 0;
  KSYNC_CUDA_CHECK(cudaGetDevice(&device));
  // The grid comes from ksync's occupancy model (resources and granularities), not from the occupancy API
  // that check_co_resident, the guard under test, consults: a guard that agreed with a wrong count would
  // otherwise go unseen.
  const int per_multiprocessor =
      ksync::cuda::model_occupancy(neighbour_exchange, threads, shared_bytes, device).blocks_per_multiprocessor;
  const auto resident = static_cast<unsigned int>(per_multiprocessor * ksync::cuda::multiprocessor_count(device));
  const unsigned int blocks = which == variant::fixed ? resident : resident + 1;
  outcome result;
  try {
    ksync::cuda::check_co_resident("hazard 09", neighbour_exchange, blocks, threads, shared_bytes, device);
  } catch (const std::invalid_argument& refusal) {
    result.guard = refusal.what();
  }
  // The hazard launches anyway (what code without the guard does); the bounded spin reports instead of hanging.
  ksync::cuda::device_buffer<ksync::cuda::spin_barrier_state> state(1);
  state.copy_from({ksync::cuda::spin_barrier_state{}});
  ksync::cuda::device_buffer<int> slots(blocks);
  ksync::cuda::device_buffer<int> out(blocks);
  out.copy_from(std::vector<int>(blocks, -1));
  neighbour_exchange<<<blocks, threads, shared_bytes>>>(state.data(), timeout_ns, slots.data(), out.data());
  KSYNC_CUDA_CHECK_LAUNCH("ksync::hazards::neighbour_exchange");
  KSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> expected(blocks);
  for (unsigned int b = 0; b < blocks; ++b)
    expected[b] = static_cast<int>((b + 1) % blocks) + 1;
  compare(result, out.to_host(), expected);
  result.timed_out = state.to_host()[0].timed_out;
  result.note = std::to_string(blocks) + " blocks, " + std::to_string(resident) + " resident at most";
  return result;
}

// 10 — 132 writer/reader pairs per launch, 200 launches; a mismatch is a reader that saw the flag but not
// the data (a stale read). The writers wait 50 µs before writing, so each reader's first read comes before
// the write: the plain version then returns that stale value (its compiled code reuses the first read;
// tests/ptx/check_publish_flag.py reads the PTX), and hazards.10.flag_without_ordering.stale_reads asserts a
// non-zero count; the twin's acquire load re-reads after the flag, and its count must be zero.
outcome run_flag_publish(variant which, bool /*checked*/) {
  constexpr unsigned int pairs = 132;
  constexpr int launches = 200;
  constexpr unsigned int spin_limit = 1u << 24;
  ksync::cuda::device_buffer<int> data(pairs);
  ksync::cuda::device_buffer<int> flags(pairs);
  ksync::cuda::device_buffer<flag_reading> seen(pairs);
  const auto kernel = which == variant::fixed ? publish_with_release_flag : publish_with_plain_flag;
  outcome result;
  std::vector<int> expected = iota_values(static_cast<int>(pairs));
  for (int launch = 0; launch < launches; ++launch) {
    KSYNC_CUDA_CHECK(cudaMemset(data.data(), 0, pairs * sizeof(int)));
    KSYNC_CUDA_CHECK(cudaMemset(flags.data(), 0, pairs * sizeof(int)));
    kernel<<<2 * pairs, 32>>>(data.data(), flags.data(), seen.data(), spin_limit);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::hazards::publish_flag");
    KSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<int> after;
    for (const auto& reading : seen.to_host())
      after.push_back(reading.after);
    outcome one;
    compare(one, after, expected);
    result.checked_elements += one.checked_elements;
    result.mismatches += one.mismatches;
  }
  result.note = std::to_string(launches) + " launches of " + std::to_string(pairs) + " writer/reader pairs";
  return result;
}

}  // namespace

std::vector<hazard_case> grid_cases() {
  return {{"09", "oversubscribed_grid", false, run_oversubscribed_grid},
          {"10", "flag_without_ordering", false, run_flag_publish}};
}

}  // namespace ksync::hazards
