// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The barrier-cost table, native rows: what one barrier costs at each scope. Each kernel runs `rounds`
// barriers back to back; a sample is one launch timed with events, and seconds_per_barrier is its time over
// the rounds (the launch itself is spread over them and shows only for kernel relaunch and graph nodes,
// which time one empty launch or node each). The portable rows (team_barrier, Kokkos launch + fence, Kokkos
// graph node) are in bench/barrier_bench.cpp; tools/sync-tables puts both in one table.
#include "native.cuh"

#include <ksync/cuda/device/occupancy.hpp>
#include <ksync/cuda/grid/barrier.cuh>
#include <ksync/cuda/grid/cluster.cuh>
#include <ksync/cuda/grid/co_resident.cuh>
#include <ksync/cuda/runtime.hpp>

#include <cooperative_groups.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ksync::bench::time_on_stream;
using ksync::cuda::device_buffer;

constexpr std::uint64_t no_timeout = 10'000'000'000;  // 10 s: these grids are checked co-resident

// `rounds` arrivals at a barrier, arrive() returning false once the barrier gives up (the spin barriers'
// timeout). Each round folds into a value the kernel may publish, so the loop cannot be dropped.
template <class Arrive>
__device__ void run_rounds(int rounds, int* sink, Arrive&& arrive) {
  int value = static_cast<int>(threadIdx.x);
  for (int round = 0; round < rounds; ++round) {
    value += round;
    if (!arrive()) return;
  }
  if (value == -1) *sink = value;
}

__global__ void syncwarp_rounds(int rounds, int* sink) {
  run_rounds(rounds, sink, [] {
    // Participation: every lane of the warp (full mask; every lane runs every round). Data: none; the
    // barrier itself is timed.
    __syncwarp();
    return true;
  });
}

__global__ void syncthreads_rounds(int rounds, int* sink) {
  // Participation: every thread of the block (uniform loop). Data: none; the barrier itself is timed.
  run_rounds(rounds, sink, [] { return (__syncthreads(), true); });
}

__global__ void cluster_sync_rounds(int rounds, int* sink) {
#if KSYNC_CLUSTER_CODE
  const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  // Participation: every thread of every block of the cluster (uniform loop). Data: none; timed.
  run_rounds(rounds, sink, [&] { return (cluster.sync(), true); });
#else
  (void)rounds;
  (void)sink;
  __trap();  // not reached: cluster_launch refuses code without clusters
#endif
}

__global__ void grid_sync_rounds(int rounds, int* sink) {
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  // Participation: every thread of every block of the cooperative grid (uniform loop). Data: none; timed.
  run_rounds(rounds, sink, [&] { return (grid.sync(), true); });
}

__global__ void spin_barrier_rounds(int rounds, ksync::cuda::spin_barrier_state* state, int* sink) {
  // Participation: every thread of every block of the co-resident grid. Data: none; timed.
  run_rounds(rounds, sink, [&] { return ksync::cuda::spin_barrier_sync(state, no_timeout); });
}

__global__ void volatile_barrier_rounds(int rounds, ksync::cuda::volatile_spin_barrier_state* state, int* sink) {
  unsigned int sense = *static_cast<volatile unsigned int*>(&state->sense);
  // Participation: every thread of every block of the co-resident grid. Data: none; timed.
  run_rounds(rounds, sink, [&] { return ksync::cuda::volatile_spin_barrier_sync(state, sense, no_timeout); });
}

__global__ void empty_kernel() {}

void record_barrier_grid(benchmark::State& state, int rounds, unsigned int blocks, int block_size) {
  ksync::bench::record_barriers(state, rounds);
  state.counters["blocks"] = blocks;
  state.counters["block_size"] = block_size;
}

int device_multiprocessors() {
  int device = 0;
  KSYNC_CUDA_CHECK(cudaGetDevice(&device));
  return ksync::cuda::multiprocessor_count(device);
}

// One block per multiprocessor of `block_size` threads (warp rows: 32-thread blocks, one warp each).
void time_block_scope(benchmark::State& state, bool warp, int block_size, int rounds) {
  const auto blocks = static_cast<unsigned int>(device_multiprocessors());
  int device = 0;
  KSYNC_CUDA_CHECK(cudaGetDevice(&device));
  // The occupancy model's answer for this kernel, beside Kokkos' team_size_max in the portable rows.
  const auto model = ksync::cuda::model_occupancy(warp ? syncwarp_rounds : syncthreads_rounds, block_size, 0, device);
  state.counters["model_blocks_per_sm"] = model.blocks_per_multiprocessor;
  device_buffer<int> sink(1);
  time_on_stream(
      state, cudaStreamPerThread, 0,
      [&] {
        if (warp) {
          syncwarp_rounds<<<blocks, block_size, 0, cudaStreamPerThread>>>(rounds, sink.data());
        } else {
          syncthreads_rounds<<<blocks, block_size, 0, cudaStreamPerThread>>>(rounds, sink.data());
        }
        KSYNC_CUDA_CHECK_LAUNCH("block-scope rounds");
      },
      ksync::bench::timing::latency);
  record_barrier_grid(state, rounds, blocks, block_size);
}

void time_cluster_sync(benchmark::State& state, int cluster_size, int rounds) {
  device_buffer<int> sink(1);
  std::optional<ksync::cuda::cluster_launch<int, int*>> refusable;
  try {
    refusable.emplace("barrier bench", cluster_sync_rounds, 128, cluster_size, 0, cudaStreamPerThread);
  } catch (const std::invalid_argument& refusal) {
    ksync::bench::refused(state, refusal.what());  // a size this device does not accept (16 is not portable)
    return;
  }
  auto& launch = *refusable;
  const auto clusters = static_cast<unsigned int>(launch.max_active_clusters());
  time_on_stream(
      state, cudaStreamPerThread, 0, [&] { launch.launch(clusters, rounds, sink.data()); },
      ksync::bench::timing::latency);
  record_barrier_grid(state, rounds, clusters * launch.cluster_size(), 128);
}

// Grid rows: 256-thread blocks, `per_multiprocessor` per multiprocessor (0: as many as fit).
void time_grid_barrier(benchmark::State& state, int kind, int per_multiprocessor, int rounds) {
  int device = 0;
  KSYNC_CUDA_CHECK(cudaGetDevice(&device));
  device_buffer<int> sink(1);
  device_buffer<ksync::cuda::spin_barrier_state> spin_state(std::vector<ksync::cuda::spin_barrier_state>(1));
  device_buffer<ksync::cuda::volatile_spin_barrier_state> volatile_state(
      std::vector<ksync::cuda::volatile_spin_barrier_state>(1));
  ksync::cuda::grid_shape grid{};
  if (kind == 0) {
    grid = ksync::cuda::co_resident_grid("barrier bench", grid_sync_rounds, 256, 0, per_multiprocessor, device);
  } else if (kind == 1) {
    grid = ksync::cuda::co_resident_grid("barrier bench", spin_barrier_rounds, 256, 0, per_multiprocessor, device);
  } else {
    grid = ksync::cuda::co_resident_grid("barrier bench", volatile_barrier_rounds, 256, 0, per_multiprocessor, device);
  }
  time_on_stream(
      state, cudaStreamPerThread, 0,
      [&] {
        if (kind == 0) {
          ksync::cuda::launch_cooperative("barrier bench", grid_sync_rounds, grid, cudaStreamPerThread, rounds,
                                          sink.data());
        } else if (kind == 1) {
          spin_barrier_rounds<<<grid.blocks, 256, 0, cudaStreamPerThread>>>(rounds, spin_state.data(), sink.data());
        } else {
          volatile_barrier_rounds<<<grid.blocks, 256, 0, cudaStreamPerThread>>>(rounds, volatile_state.data(),
                                                                                sink.data());
        }
        KSYNC_CUDA_CHECK_LAUNCH("grid rounds");
      },
      ksync::bench::timing::latency);
  record_barrier_grid(state, rounds, grid.blocks, 256);
  if (spin_state.to_host()[0].timed_out + volatile_state.to_host()[0].timed_out != 0) {
    ksync::bench::row_failed(state, "a spin barrier timed out");
  }
}

// What separates two kernels instead of a barrier: launching the next one (throughput: `launches` empty
// kernels back to back, timed from the first to the last), or a node of a CUDA graph of `launches` of them.
void time_relaunch(benchmark::State& state, bool graph, int launches) {
  cudaGraphExec_t executable = nullptr;
  if (graph) {
    cudaStream_t capture = nullptr;
    KSYNC_CUDA_CHECK(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking));
    cudaGraph_t captured = nullptr;
    KSYNC_CUDA_CHECK(cudaStreamBeginCapture(capture, cudaStreamCaptureModeRelaxed));
    for (int launch = 0; launch < launches; ++launch)
      empty_kernel<<<1, 32, 0, capture>>>();
    KSYNC_CUDA_CHECK(cudaStreamEndCapture(capture, &captured));
    KSYNC_CUDA_CHECK(cudaGraphInstantiate(&executable, captured, 0));
    KSYNC_CUDA_CHECK(cudaGraphDestroy(captured));
    KSYNC_CUDA_CHECK(cudaStreamDestroy(capture));
  }
  time_on_stream(
      state, cudaStreamPerThread, 0,
      [&] {
        if (graph) {
          KSYNC_CUDA_CHECK(cudaGraphLaunch(executable, cudaStreamPerThread));
        } else {
          for (int launch = 0; launch < launches; ++launch)
            empty_kernel<<<1, 32, 0, cudaStreamPerThread>>>();
          KSYNC_CUDA_CHECK_LAUNCH("empty_kernel");
        }
      },
      ksync::bench::timing::latency);
  record_barrier_grid(state, launches, 1, 32);
  if (executable != nullptr) KSYNC_CUDA_CHECK(cudaGraphExecDestroy(executable));
}

}  // namespace

void ksync::bench::register_barrier_benchmarks(bool smoke) {
  const int fast_rounds = smoke ? 100 : 100'000;
  const int grid_rounds = smoke ? 10 : 2'000;
  const int launches = smoke ? 10 : 1'000;
  benchmark::RegisterBenchmark("native/barrier/syncwarp/32", time_block_scope, true, 32, fast_rounds)->UseManualTime();
  for (const int block_size : {64, 128, 256, 512, 1024}) {
    benchmark::RegisterBenchmark("native/barrier/syncthreads/" + std::to_string(block_size), time_block_scope, false,
                                 block_size, fast_rounds)
        ->UseManualTime();
  }
  for (const int cluster_size : {2, 4, 8, 16}) {
    benchmark::RegisterBenchmark("native/barrier/cluster_sync/" + std::to_string(cluster_size), time_cluster_sync,
                                 cluster_size, fast_rounds / 10)
        ->UseManualTime();
  }
  const char* grid_kinds[] = {"grid_sync", "spin_barrier", "volatile_spin_barrier"};
  for (int kind = 0; kind < 3; ++kind) {
    for (const int per_multiprocessor : {1, 0}) {
      const std::string occupancy = per_multiprocessor == 1 ? "1_block_per_sm" : "full_occupancy";
      benchmark::RegisterBenchmark("native/barrier/" + std::string(grid_kinds[kind]) + "/" + occupancy,
                                   time_grid_barrier, kind, per_multiprocessor, grid_rounds)
          ->UseManualTime();
    }
  }
  benchmark::RegisterBenchmark("native/barrier/kernel_relaunch", time_relaunch, false, launches)->UseManualTime();
  benchmark::RegisterBenchmark("native/barrier/cuda_graph_node", time_relaunch, true, launches)->UseManualTime();
}
