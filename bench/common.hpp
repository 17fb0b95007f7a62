// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What every ksync benchmark binary shares: the --ksync_smoke flag and the problem sizes.
#pragma once

#include "checks.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
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

// Device-wide reduction sweep: 2^16 ... 2^30 in steps of 4x (smoke: two tiny sizes). Host backends stop at
// 2^26: 256 MiB of floats is already far past a CPU's caches, and each row at 2^28 took 9-14 s of the 2-core
// machine's main job (allocating, filling and checking 1-2 GiB), 10 rows for nothing new.
inline std::vector<std::int64_t> reduce_sweep_sizes(bool smoke, bool host_backend = false) {
  if (smoke) return {std::int64_t{1} << 10, std::int64_t{1} << 14};
  std::vector<std::int64_t> sizes;
  for (int exponent = 16; exponent <= (host_backend ? 26 : 30); exponent += 2)
    sizes.push_back(std::int64_t{1} << exponent);
  return sizes;
}

// Whether the reduction sweep registers its own device copy of n elements (reverse_bench then does not: one
// row name, one family, or a report would merge two families' samples as repetitions of one row).
inline bool in_reduce_sweep(std::int64_t n, bool smoke, bool host_backend = false) {
  const auto sizes = reduce_sweep_sizes(smoke, host_backend);
  return std::ranges::find(sizes, n) != sizes.end();
}

// Where the tuning knobs and the other operators and types are compared: launch-bound and bandwidth-bound.
inline std::vector<std::int64_t> reduce_focus_sizes(bool smoke) {
  if (smoke) return {std::int64_t{1} << 12};
  return {std::int64_t{1} << 20, std::int64_t{1} << 28};
}

// Block-scope operations (reverse, segment_reduce, segment_predicates): 2^26 elements (256 MiB of floats,
// several times the L2 of current GPUs).
inline std::vector<std::int64_t> block_sizes(bool smoke) {
  if (smoke) return {std::int64_t{1} << 12};
  return {std::int64_t{1} << 26};
}

// The pattern's dot product with itself: each period 0..7 contributes 0 + 1 + 4 + ... + 49 = 140.
inline double pattern_dot(std::int64_t n) {
  double rest = 0;
  for (std::int64_t i = 0; i < n % 8; ++i)
    rest += static_cast<double>(i * i);
  const std::int64_t full_periods = n / 8;
  return 140.0 * static_cast<double>(full_periods) + rest;
}

// Fails the row when `value` is not the pattern's result (float sums of 2^28 values round: 1e-3 relative);
// `what` is "sum", "min", "max" or "dot".
inline void check_pattern_result(benchmark::State& state, double value, std::int64_t n, const char* what) {
  const std::string_view op = what;
  const double expected = op == "sum"   ? pattern_sum(n)
                          : op == "dot" ? pattern_dot(n)
                          : op == "min" ? 0.0
                                        : static_cast<double>(std::min<std::int64_t>(n, 8) - 1);
  if (std::fabs(value - expected) > 1e-3 * std::fabs(expected))
    check_failed(state, std::string(what) + " of " + std::to_string(n) + " elements is " + std::to_string(value) +
                            ", expected " + std::to_string(expected));
}

// How calls are timed. `throughput` (the default): a sample is a batch of back-to-back calls on one stream
// or instance, and the time per call is the batch's time divided by its size (counter seconds_per_call) —
// the GPU time a call costs in a stream of work, launch overhead overlapped as in an iterative solver. `latency`: a
// sample is one call, from an idle stream to its completion, launch overhead included. `cold`: a sample is
// one call after the GPU's L2 has been overwritten (untimed, on the same stream or instance), so its data
// comes from device memory and not from the cache the previous call warmed — the "hot" rows' difference
// where the data fits in L2 (cold_sizes).
enum class timing { throughput, latency, cold };

// The sweep sizes a GPU's L2 could hold (up to 64 MiB of floats), where hot and cold timings differ; cold
// rows run a fixed number of samples (each pays an untimed cache flush).
inline std::vector<std::int64_t> cold_sizes(bool smoke) {
  if (smoke) return {std::int64_t{1} << 10};
  std::vector<std::int64_t> sizes;
  for (int exponent = 16; exponent <= 24; exponent += 2)
    sizes.push_back(std::int64_t{1} << exponent);
  return sizes;
}
inline benchmark::IterationCount cold_samples(bool smoke) {
  return smoke ? 2 : 200;
}

// Calls per sample: one in latency and cold modes; in throughput mode enough that the batch's own start and end cost
// little (20 for small calls), one once a call moves `batch_bytes` (256 MiB unless the harness asks more) or more.
inline int calls_per_sample(timing mode, std::int64_t bytes_per_call,
                            std::int64_t batch_bytes = std::int64_t{256} << 20) {
  if (mode != timing::throughput) return 1;
  const std::int64_t batch = batch_bytes / std::max<std::int64_t>(1, bytes_per_call);
  return static_cast<int>(std::clamp<std::int64_t>(batch, 1, 20));
}

// After a timed loop whose iterations each ran `calls` calls: bytes processed, the batch size, and the time
// of one call (seconds_per_call; Google Benchmark's own time column is the time of one batch).
inline void record_calls(benchmark::State& state, int calls, std::int64_t bytes_per_call) {
  state.SetBytesProcessed(state.iterations() * calls * bytes_per_call);
  state.counters["calls_per_sample"] = calls;
  state.counters["seconds_per_call"] =
      benchmark::Counter(calls, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Barrier rows (barrier_bench): each sample ran `rounds` barriers (or launches); seconds_per_barrier is one.
inline void record_barriers(benchmark::State& state, int rounds) {
  state.counters["rounds"] = rounds;
  state.counters["seconds_per_barrier"] =
      benchmark::Counter(rounds, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// The persistent iterative workload (jacobi_bench): Jacobi sweeps of 2^10 ... 2^24 points, 500 per call
// (smoke: two tiny sizes, 10 phases).
inline std::vector<std::int64_t> jacobi_sizes(bool smoke) {
  std::vector<std::int64_t> sizes;
  for (int exponent = 10; exponent <= (smoke ? 12 : 24); exponent += 2)
    sizes.push_back(std::int64_t{1} << exponent);
  return sizes;
}
inline int jacobi_phases(bool smoke) {
  return smoke ? 10 : 500;
}

// After a timed loop whose samples each ran `phases` sweeps of n points: seconds_per_phase, and the bytes a
// sweep moves (n points read, n written; the neighbours come from cache).
inline void record_phases(benchmark::State& state, int phases, std::int64_t n) {
  state.counters["n"] = static_cast<double>(n);
  state.counters["phases"] = phases;
  state.counters["seconds_per_phase"] =
      benchmark::Counter(phases, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetBytesProcessed(state.iterations() * phases * n * 8);
}

// Conjugate gradients (cg_bench): the 2-D Poisson problem on m x m unknowns for m = 64 ... 4096 (smoke: 16,
// 32), a fixed number of iterations per solve (the tolerance is out of reach), in double. Host backends stop
// at m = 2048: its five vectors of 32 MiB are already far past a CPU's caches (the bandwidth-bound regime),
// and one repetition of a form at 4096 took 23-39 s on 2 OpenMP threads, a third of the CPU suite's time.
inline std::vector<std::int64_t> cg_grid_sizes(bool smoke, bool host_backend = false) {
  if (smoke) return {16, 32};
  if (host_backend) return {64, 128, 256, 512, 1024, 2048};
  return {64, 128, 256, 512, 1024, 2048, 4096};
}
inline int cg_iterations(bool smoke) {
  return smoke ? 5 : 200;
}
inline constexpr double cg_unreachable_tolerance = 1e-30;
// Vector passes an iteration, each vector read or written once (the operator's neighbours come from cache):
// 14 unfused (p update 3, A p 2, p.Ap 2, x/r update 6, r.r 1), 10 fused (direction and A p 4, update with r.r
// 6), 12 pipelined (w, z, s, p, x, r read, the same six written).
inline double cg_vector_passes(bool fused, bool pipelined = false) {
  return pipelined ? 12.0 : fused ? 10.0 : 14.0;
}
// Bytes an iteration moves in double on the built-in stencil.
inline double cg_bytes_per_iteration(std::int64_t m, bool fused, bool pipelined = false) {
  return cg_vector_passes(fused, pipelined) * 8.0 * static_cast<double>(m * m);
}
// After a timed loop whose samples each ran one solve of `iterations` iterations (host to host).
inline void record_cg(benchmark::State& state, std::int64_t m, int iterations, bool fused, bool pipelined = false) {
  state.counters["m"] = static_cast<double>(m);
  state.counters["iterations"] = iterations;
  state.counters["bytes_per_iteration"] = cg_bytes_per_iteration(m, fused, pipelined);
  state.counters["seconds_per_iteration"] =
      benchmark::Counter(iterations, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
// A solve's check: the residual CG tracks (recurrence) agrees with ||b - A x|| / ||b|| computed afresh from
// the x it returned, to 1e-6 of ||b|| plus 1e-3 of itself (double, a few hundred iterations drift far less),
// and the solve ran every iteration. A form that skipped or garbled a step leaves x and its recurrence apart.
inline void check_cg_solve(benchmark::State& state, int iterations_run, int iterations, double recurrence,
                           double true_residual) {
  if (iterations_run != iterations || !(std::fabs(recurrence - true_residual) <= 1e-6 + 1e-3 * true_residual))
    check_failed(state, "the solve ran " + std::to_string(iterations_run) + " of " + std::to_string(iterations) +
                            " iterations; its recurrence says " + std::to_string(recurrence) +
                            " but ||b - A x|| / ||b|| is " + std::to_string(true_residual));
}

// Times `solve` (one blocking solve) host to host per sample, after one untimed call (allocations, graph
// capture, module loading): the solver rows of cg_bench and cg_csr_bench.
template <class Solve>
void time_solves(benchmark::State& state, Solve&& solve) {
  (void)solve();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    (void)solve();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
}

// Host-to-host round trips (reduce_bench's round_trip rows): 2^10, 2^16 and 2^20 floats (smoke: 2^10), 50
// blocking calls per sample.
inline std::vector<std::int64_t> round_trip_sizes(bool smoke) {
  if (smoke) return {std::int64_t{1} << 10};
  return {std::int64_t{1} << 10, std::int64_t{1} << 16, std::int64_t{1} << 20};
}
inline constexpr int round_trips_per_sample = 50;

// Times `call` (one blocking float sum of state.range(0) pattern elements, returning it) host to host,
// round_trips_per_sample calls per sample, after one untimed call; checks the last value.
template <class Call>
void time_round_trips(benchmark::State& state, Call&& call) {
  const std::int64_t n = state.range(0);
  float value = call();  // warm-up: workspaces, module loading
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < round_trips_per_sample; ++k)
      value = call();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  check_pattern_result(state, value, n, "sum");
  state.counters["n"] = static_cast<double>(n);
  state.counters["seconds_per_call"] = benchmark::Counter(
      round_trips_per_sample, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// The chunked copy-compute-copy pipeline (pipeline_bench) on the classic overlap example, y = 2x over 2^24
// floats, in chunks of 256 KiB to 64 MiB over 1, 2, 4 and 8 streams (smoke: 2^16 floats, two chunk sizes,
// 1 and 4).
struct scale_by_two {
  KSYNC_HOST_DEVICE float operator()(float x) const { return 2.0f * x; }
};
inline std::int64_t pipeline_elements(bool smoke) {
  return smoke ? std::int64_t{1} << 16 : std::int64_t{1} << 24;
}
inline std::vector<std::int64_t> pipeline_chunk_kib(bool smoke) {
  if (smoke) return {64, 256};
  std::vector<std::int64_t> kib;
  for (std::int64_t k = 256; k <= 65536; k *= 2)
    kib.push_back(k);
  return kib;
}
inline std::vector<std::int64_t> pipeline_stream_counts(bool smoke) {
  if (smoke) return {1, 4};
  return {1, 2, 4, 8};
}
// After a timed loop of pipeline runs: the configuration and the bytes moved (n in, n out).
inline void record_pipeline(benchmark::State& state, std::int64_t n, std::int64_t streams, std::int64_t chunk_kib) {
  state.counters["n"] = static_cast<double>(n);
  state.counters["streams"] = static_cast<double>(streams);
  state.counters["chunk_bytes"] = static_cast<double>(chunk_kib * 1024);
  state.SetBytesProcessed(state.iterations() * n * 8);
}

// The host compiler, in the JSON's context (tools/ksync bench writes the run's fingerprint beside the JSON).
inline void add_build_context() {
#if defined(__clang__)
  benchmark::AddCustomContext("host_compiler", std::string("clang ") + __clang_version__);
#elif defined(__GNUC__)
  benchmark::AddCustomContext("host_compiler", "gcc " + std::to_string(__GNUC__) + "." +
                                                   std::to_string(__GNUC_MINOR__) + "." +
                                                   std::to_string(__GNUC_PATCHLEVEL__));
#endif
}

// Registers `name` at size n, timed by the function itself (manual time: each times its own region on the
// device, never the host's wall clock around it). The arguments follow the State, as RegisterBenchmark
// passes them.
template <class Function, class... Arguments>
benchmark::internal::Benchmark* add_timed(const std::string& name, std::int64_t n, Function&& function,
                                          Arguments&&... arguments) {
  return benchmark::RegisterBenchmark(name, std::forward<Function>(function), std::forward<Arguments>(arguments)...)
      ->Arg(n)
      ->UseManualTime();
}

// Each suite registers its benchmarks for the sizes `smoke` selects; each benchmark binary (portable,
// native) defines these for its own half.
void register_reduce_benchmarks(bool smoke);
void register_transform_benchmarks(bool smoke);
void register_cg_benchmarks(bool smoke);
void register_cg_csr_benchmarks(bool smoke, const std::string& matrix_file);  // sparse.hpp: --ksync_matrix
void register_round_trip_benchmarks(bool smoke);
void register_reverse_benchmarks(bool smoke);
void register_segment_reduce_benchmarks(bool smoke);
void register_predicates_benchmarks(bool smoke);
void register_barrier_benchmarks(bool smoke);
void register_jacobi_benchmarks(bool smoke);
void register_pipeline_benchmarks(bool smoke);
void register_parallel_for_benchmarks(bool smoke);
void register_spmv_benchmarks(bool smoke);
void register_node_benchmarks(bool smoke);         // native binary only
void register_concurrency_benchmarks(bool smoke);  // native binary only

// The families both binaries run, in the order the report lists them.
inline void register_families_of_both_halves(bool smoke, const std::string& matrix_file = {}) {
  register_reduce_benchmarks(smoke);
  register_transform_benchmarks(smoke);
  register_parallel_for_benchmarks(smoke);
  register_round_trip_benchmarks(smoke);
  register_cg_benchmarks(smoke);
  register_cg_csr_benchmarks(smoke, matrix_file);
  register_spmv_benchmarks(smoke);
  register_reverse_benchmarks(smoke);
  register_segment_reduce_benchmarks(smoke);
  register_predicates_benchmarks(smoke);
  register_barrier_benchmarks(smoke);
  register_jacobi_benchmarks(smoke);
  register_pipeline_benchmarks(smoke);
}

// What each binary's main() does once its benchmarks are registered: parse Google Benchmark's flags,
// record the build and the binary's own context (add_context()), run, and return the suite's exit status
// (1 on an unrecognized flag or a row that failed its check).
template <class AddContext>
int run_registered(int& argc, char** argv, const char* suite, AddContext&& add_context) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  add_build_context();
  add_context();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return suite_exit_status(suite);
}

}  // namespace ksync::bench
