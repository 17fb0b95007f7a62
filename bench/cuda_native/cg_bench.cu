// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Conjugate gradients, native forms (ksync::cuda::cg), and the two floors of the same run: a solve of m x m
// unknowns in double, a fixed number of iterations (the tolerance is out of reach), timed host to host (a
// sample is one blocking solve, start and final look included); seconds_per_iteration is its time over the
// iterations. The floors: the device copy rate (bytes an iteration moves over it is the bandwidth floor), and
// the cost of a grid.sync() on the grid the persistent form uses at each m (two per iteration; one with the
// pipelined recurrence, whose rows are native/cg/pipelined/<form>/double). The blocking
// round trip rows (round_trip/) time one blocking reduction host to host, by the mailbox (what ksync's
// blocking reduce uses), by a copy and a stream synchronization instead, and by CUB + copy + synchronization.
// The portable forms and Kokkos' own CG are in bench/cg_bench.cpp.
#include "native.cuh"

#include <ksync/cuda/device/cg.hpp>
#include <ksync/cuda/device/reduce.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/grid/co_resident.cuh>
#include <ksync/cuda/host_memory.hpp>
#include <ksync/stencil.hpp>

#include <benchmark/benchmark.h>
#include <cooperative_groups.h>
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using ksync::cg_form;
using ksync::cuda::device_buffer;

// The right-hand side: the benchmark pattern (checks.hpp), the same on every run.
device_buffer<double> right_hand_side(std::int64_t n) {
  return ksync::bench::make_input<double>(n);
}

// sum (b - A x)^2 and sum b^2 into sums[0], sums[1].
__global__ void residual_squares(const double* b, const double* x, int m, double* sums) {
  const int n = m * m;
  double residual = 0;
  double scale = 0;
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n;
       i += static_cast<int>(gridDim.x * blockDim.x)) {
    const double r = b[i] - ksync::poisson_2d_apply<double>([x](int j) { return x[j]; }, m, i);
    residual += r * r;
    scale += b[i] * b[i];
  }
  atomicAdd(&sums[0], residual);
  atomicAdd(&sums[1], scale);
}

// ||b - A x|| / ||b|| from scratch.
double true_residual(const device_buffer<double>& b, const device_buffer<double>& x, std::int64_t m) {
  device_buffer<double> sums(std::vector<double>{0.0, 0.0});
  residual_squares<<<264, 256>>>(b.data(), x.data(), static_cast<int>(m), sums.data());
  KSYNC_CUDA_CHECK(cudaGetLastError());
  KSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  const auto host = sums.to_host();
  return std::sqrt(host[0] / host[1]);
}

void time_cg(benchmark::State& state, cg_form form, ksync::cg_recurrence recurrence, int iterations,
             ksync::cuda::cg_tuning tuning) {
  if (ksync::bench::refuses_cg_form(state, form)) return;
  const std::int64_t m = state.range(0);
  const auto b = right_hand_side(m * m);
  device_buffer<double> x(static_cast<std::size_t>(m * m));
  ksync::cuda::cg_solver<double> solver(m);
  ksync::cg_options options;
  options.tolerance = ksync::bench::cg_unreachable_tolerance;
  options.max_iterations = iterations;
  options.recurrence = recurrence;
  const auto solve = [&] {
    KSYNC_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, x.size() * sizeof(double), cudaStreamPerThread));
    return solver.solve(cudaStreamPerThread, b.data(), x.data(), form, options, tuning);
  };
  ksync::cg_result result = solve();  // warm-up, untimed: module loading, graph capture, workspaces
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    result = solve();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  ksync::bench::check_cg_solve(state, result.iterations, iterations, result.relative_residual, true_residual(b, x, m));
  const bool fused = ksync::runs_fused_pass(form);
  ksync::bench::record_cg(state, m, iterations, fused, recurrence == ksync::cg_recurrence::pipelined);
}

// The bandwidth floor's rate: a device-to-device copy of 2^26 doubles (512 MiB each way).
void time_copy_rate(benchmark::State& state) {
  const std::int64_t n = std::int64_t{1} << 26;
  const auto source = ksync::bench::make_input<double>(n);
  device_buffer<double> target(static_cast<std::size_t>(n));
  ksync::bench::time_on_stream(state, cudaStreamPerThread, 2 * n * 8, [&] {
    KSYNC_CUDA_CHECK(cudaMemcpyAsync(target.data(), source.data(), static_cast<std::size_t>(n) * 8,
                                     cudaMemcpyDeviceToDevice, cudaStreamPerThread));
  });
}

// The barrier floor: `rounds` grid.sync() in one cooperative kernel of 256-thread blocks.
__global__ void grid_sync_rounds(int rounds) {
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (int round = 0; round < rounds; ++round) {
    // Participation: every thread of every block of the cooperative grid (rounds is uniform; checked
    // co-resident). Data: none; the row times the barrier alone.
    grid.sync();
  }
}

void time_grid_sync(benchmark::State& state, int rounds) {
  const std::int64_t m = state.range(0);
  const int device = ksync::cuda::stream_device(cudaStreamPerThread);
  // The persistent CG form's grid at its default tuning: one block per 1024 unknowns, at most what fits.
  ksync::cuda::grid_shape grid =
      ksync::cuda::co_resident_grid("cg_floor/grid_sync", grid_sync_rounds, 256, 0, 0, device);
  grid.blocks = static_cast<unsigned int>(std::clamp<std::int64_t>((m * m + 1023) / 1024, 1, grid.blocks));
  ksync::bench::time_on_stream(
      state, cudaStreamPerThread, 0,
      [&] {
        ksync::cuda::launch_cooperative("cg_floor/grid_sync", grid_sync_rounds, grid, cudaStreamPerThread, rounds);
      },
      ksync::bench::timing::latency);
  ksync::bench::record_barriers(state, rounds);
  state.counters["m"] = static_cast<double>(m);
  state.counters["blocks"] = grid.blocks;
}

// One blocking float sum, host to host, `round_trips_per_sample` times per sample.
void time_round_trip_mailbox(benchmark::State& state) {
  const auto data = ksync::bench::make_input(state.range(0));
  const auto n = static_cast<std::size_t>(state.range(0));
  ksync::bench::time_round_trips(state, [&] { return ksync::cuda::reduce(cudaStreamPerThread, data.data(), n); });
}

// The same blocking sum with a strategy and launch shape named: what the default's grid (last_block, blocks
// of 256, 16 elements a thread) is chosen against where a round trip is latency-bound.
void time_round_trip_shape(benchmark::State& state, ksync::reduce_strategy strategy,
                           ksync::cuda::reduce_tuning tuning) {
  const auto data = ksync::bench::make_input(state.range(0));
  const auto n = static_cast<std::size_t>(state.range(0));
  ksync::bench::time_round_trips(state, [&] {
    return ksync::cuda::reduce(cudaStreamPerThread, data.data(), n, ksync::reduce_op::sum, strategy, tuning);
  });
}

// The round trip without the mailbox, for comparison: the result into device memory, a copy to pinned host
// memory, and cudaStreamSynchronize.
void time_round_trip_copy_and_synchronize(benchmark::State& state) {
  const auto data = ksync::bench::make_input(state.range(0));
  const auto n = static_cast<std::size_t>(state.range(0));
  const device_buffer<float> result(1);
  ksync::cuda::pinned_buffer<float> home(1);
  ksync::bench::time_round_trips(state, [&] {
    ksync::cuda::reduce(cudaStreamPerThread, data.data(), n, result.data());
    KSYNC_CUDA_CHECK(
        cudaMemcpyAsync(home.data(), result.data(), sizeof(float), cudaMemcpyDeviceToHost, cudaStreamPerThread));
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    return home.data()[0];
  });
}

void time_round_trip_cub(benchmark::State& state) {
  const auto data = ksync::bench::make_input(state.range(0));
  const auto n = state.range(0);
  const device_buffer<float> result(1);
  ksync::cuda::pinned_buffer<float> home(1);
  std::size_t bytes = 0;
  KSYNC_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, data.data(), result.data(), n, cudaStreamPerThread));
  const device_buffer<unsigned char> temp(std::max<std::size_t>(bytes, 1));
  ksync::bench::time_round_trips(state, [&] {
    KSYNC_CUDA_CHECK(cub::DeviceReduce::Sum(temp.data(), bytes, data.data(), result.data(), n, cudaStreamPerThread));
    KSYNC_CUDA_CHECK(
        cudaMemcpyAsync(home.data(), result.data(), sizeof(float), cudaMemcpyDeviceToHost, cudaStreamPerThread));
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    return home.data()[0];
  });
}

}  // namespace

void ksync::bench::register_cg_benchmarks(bool smoke) {
  const int iterations = cg_iterations(smoke);
  for (const auto recurrence : {ksync::cg_recurrence::classic, ksync::cg_recurrence::pipelined}) {
    const std::string prefix = recurrence == ksync::cg_recurrence::pipelined ? "native/cg/pipelined/" : "native/cg/";
    for (const auto form : ksync::ids_of_half<cg_form>(ksync::strategy_half::native)) {
      if (recurrence == ksync::cg_recurrence::pipelined && !ksync::runs_pipelined(form)) continue;
      for (const auto m : cg_grid_sizes(smoke))
        ksync::bench::add_timed(prefix + std::string(ksync::to_string(form)) + "/double", m, time_cg, form, recurrence,
                                iterations, ksync::cuda::cg_tuning{});
    }
  }
  // persistent_cluster on clusters of 4, 8 and 16 blocks (tuning.cluster_blocks; its own rows take the largest
  // the device takes), the classic recurrence.
  for (const int blocks : {4, 8, 16}) {
    for (const std::int64_t m : smoke ? std::vector<std::int64_t>{64} : std::vector<std::int64_t>{64, 128, 256, 512})
      ksync::bench::add_timed("native/cg_cluster_blocks/" + std::to_string(blocks) + "/double", m, time_cg,
                              cg_form::persistent_cluster, ksync::cg_recurrence::classic, iterations,
                              ksync::cuda::cg_tuning{.cluster_blocks = blocks});
  }
  // persistent_cluster with its vectors in each memory (tuning.cluster_vectors; its own rows take automatic), each
  // recurrence, on the cluster it picks.
  for (const auto recurrence : {ksync::cg_recurrence::classic, ksync::cg_recurrence::pipelined}) {
    const std::string prefix = recurrence == ksync::cg_recurrence::pipelined ? "native/cg_cluster_vectors/pipelined/"
                                                                             : "native/cg_cluster_vectors/";
    for (const auto placement :
         {ksync::cuda::cg_cluster_vectors::shared_memory, ksync::cuda::cg_cluster_vectors::global_memory}) {
      for (const std::int64_t m : smoke ? std::vector<std::int64_t>{64} : std::vector<std::int64_t>{64, 128, 256})
        ksync::bench::add_timed(prefix + std::string(ksync::cuda::to_string(placement)) + "/double", m, time_cg,
                                cg_form::persistent_cluster, recurrence, iterations,
                                ksync::cuda::cg_tuning{.cluster_vectors = placement});
    }
  }
  benchmark::RegisterBenchmark("native/cg_floor/copy/double", time_copy_rate)->UseManualTime();
  for (const auto m : cg_grid_sizes(smoke))
    ksync::bench::add_timed("native/cg_floor/grid_sync", m, time_grid_sync, smoke ? 10 : 1000);
}

void ksync::bench::register_round_trip_benchmarks(bool smoke) {
  for (const auto n : round_trip_sizes(smoke)) {
    ksync::bench::add_timed("native/round_trip/ksync_mailbox/float", n, time_round_trip_mailbox);
    ksync::bench::add_timed("native/round_trip/copy_and_synchronize/float", n, time_round_trip_copy_and_synchronize);
    ksync::bench::add_timed("native/round_trip/cub/float", n, time_round_trip_cub);
  }
  // native/round_trip_shape/<strategy>/<block size>x<items a thread>/float/<n>: the one-store strategies at
  // the default shape, and last_block's shapes around it, at the sizes where the grid has more than one block.
  for (const auto n : smoke ? std::vector<std::int64_t>{std::int64_t{1} << 16}
                            : std::vector<std::int64_t>{std::int64_t{1} << 16, std::int64_t{1} << 20}) {
    const auto add = [&](ksync::reduce_strategy strategy, int block_size, int items) {
      ksync::bench::add_timed("native/round_trip_shape/" + std::string(ksync::to_string(strategy)) + "/" +
                                  std::to_string(block_size) + "x" + std::to_string(items) + "/float",
                              n, time_round_trip_shape, strategy,
                              ksync::cuda::reduce_tuning{.block_size = block_size, .items_per_thread = items});
    };
    for (const auto strategy :
         {ksync::reduce_strategy::two_pass, ksync::reduce_strategy::grid_sync, ksync::reduce_strategy::cluster})
      add(strategy, 256, 16);
    for (const int block_size : ksync::cuda::reduce_block_sizes)
      for (const int items : smoke ? std::vector<int>{16} : std::vector<int>{4, 8, 16, 32, 64})
        add(ksync::reduce_strategy::last_block, block_size, items);
  }
}
