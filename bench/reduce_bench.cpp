// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Portable device-wide reductions on Kokkos' default execution space, side by side in one run with: Kokkos'
// own parallel_reduce (the `kokkos` strategy, what users write), Kokkos Kernels' sum and dot when built with
// them, a device copy and a read-only stream (the bandwidth ceilings, transform_bench.cpp's too), and — on
// the CUDA backend — ksync's native kernels reached through the bridge and CUB's DeviceReduce::Sum on the
// same instance's stream, timed by the same harness (the vendor baseline of this run).
#include "portable.hpp"

#include <ksync/config.hpp>
#include <ksync/reduce.hpp>
#if KSYNC_HAS_KOKKOS_KERNELS
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_sum.hpp>
#endif

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
#include <cub/device/device_reduce.cuh>
#define KSYNC_BENCH_CUB 1
#else
#define KSYNC_BENCH_CUB 0
#endif

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace ksync::bench {
namespace {

using ksync::reduce_op;
using ksync::reduce_strategy;

// One reduction into a device View per iteration, by `run(exec, data, result)`; checks the last result.
template <class Run>
void time_reduction(benchmark::State& state, const char* what, std::int64_t bytes_per_element, Run&& run,
                    timing mode = timing::throughput) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const auto data = make_input(exec, n);
  const Kokkos::View<float> result("result");
  try {
    time_on_instance(state, exec, n * bytes_per_element, [&] { run(exec, data, result); }, mode);
  } catch (const std::invalid_argument& refusal) {  // a strategy this backend refuses
    refused(state, refusal.what());
    return;
  } catch (const std::exception& failure) {  // a failed call (a vendor library, the runtime)
    row_failed(state, failure.what());
    return;
  }
  float last = 0;
  Kokkos::deep_copy(last, result);
  check_pattern_result(state, last, n, what);
  state.counters["n"] = static_cast<double>(n);
}

void time_reduce(benchmark::State& state, reduce_op op, reduce_strategy strategy, timing mode = timing::throughput) {
  const std::string what(ksync::to_string(op));
  time_reduction(
      state, what.c_str(), 4,
      [&](const Exec& exec, const auto& data, const auto& result) { ksync::reduce(exec, data, op, strategy, result); },
      mode);
}

// The dot of the pattern with itself: reads the View twice per element, as a two-View dot does.
void time_dot(benchmark::State& state, reduce_strategy strategy) {
  time_reduction(state, "dot", 8, [&](const Exec& exec, const auto& data, const auto& result) {
    ksync::dot(exec, data, data, strategy, result);
  });
}

#if KSYNC_HAS_KOKKOS_KERNELS
void time_kokkos_kernels_sum(benchmark::State& state) {
  time_reduction(state, "sum", 4,
                 [](const Exec& exec, const auto& data, const auto& result) { KokkosBlas::sum(exec, result, data); });
}
void time_kokkos_kernels_dot(benchmark::State& state) {
  time_reduction(state, "dot", 8, [](const Exec& exec, const auto& data, const auto& result) {
    KokkosBlas::dot(exec, result, data, data);
  });
}
#endif

#if KSYNC_BENCH_CUB
// CUB's DeviceReduce::Sum into the same result View on exec's stream; its scratch is sized and allocated
// during the untimed warm-up call.
void time_cub_sum(benchmark::State& state) {
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    Kokkos::View<unsigned char*, Kokkos::CudaSpace> scratch;
    std::size_t scratch_bytes = 0;
    time_reduction(state, "sum", 4, [&](const Exec& exec, const auto& data, const auto& result) {
      const auto n = static_cast<std::int64_t>(data.extent(0));
      if (scratch.data() == nullptr) {
        if (cub::DeviceReduce::Sum(nullptr, scratch_bytes, data.data(), result.data(), n, exec.cuda_stream()) !=
            cudaSuccess) {
          throw std::runtime_error("cub::DeviceReduce::Sum failed to size its scratch");
        }
        scratch = decltype(scratch)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "cub_scratch"),
                                    std::max<std::size_t>(1, scratch_bytes));
      }
      if (cub::DeviceReduce::Sum(scratch.data(), scratch_bytes, data.data(), result.data(), n, exec.cuda_stream()) !=
          cudaSuccess) {
        throw std::runtime_error("cub::DeviceReduce::Sum failed");
      }
    });
  }
}
#endif

// A read-only stream: every 4-byte word of the data ORed into eight (host) or four (GPU) independent
// accumulators. The cheapest loop that reads every byte once — the read bandwidth ceiling of this run.
struct ReadStream {
  Kokkos::View<const std::uint32_t*, Kokkos::MemoryTraits<Kokkos::Unmanaged>> words;
  std::int64_t n;
  std::int64_t lanes;
  std::int64_t chunk;
  KOKKOS_FUNCTION void operator()(std::int64_t lane, std::uint32_t& bits) const {
    std::uint32_t partial[8] = {};
    if constexpr (ksync::runs_on_host<Exec>) {
      const std::int64_t begin = lane * chunk;
      const std::int64_t end = begin + chunk < n ? begin + chunk : n;
      std::int64_t i = begin;
      for (; i + 8 <= end; i += 8)
        for (int k = 0; k < 8; ++k)
          partial[k] |= words(i + k);
      for (; i < end; ++i)
        partial[0] |= words(i);
    } else {
      std::int64_t i = lane;
      for (; i + 3 * lanes < n; i += 4 * lanes)
        for (int k = 0; k < 4; ++k)
          partial[k] |= words(i + k * lanes);
      for (; i < n; i += lanes)
        partial[0] |= words(i);
    }
    for (const std::uint32_t word : partial)
      bits |= word;
  }
};

void time_read_stream(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const Exec exec;
  const auto data = make_input(exec, n);
  const Kokkos::View<std::uint32_t> result("bits");
  // Host: one contiguous chunk per thread; GPU: at least 16 words per lane, one lane per resident thread.
  const std::int64_t concurrency = std::max<std::int64_t>(1, exec.concurrency());
  const std::int64_t lanes =
      std::max<std::int64_t>(1, std::min<std::int64_t>(concurrency, ksync::runs_on_host<Exec> ? n : (n + 15) / 16));
  const decltype(ReadStream::words) words(reinterpret_cast<const std::uint32_t*>(data.data()), n);
  const ReadStream functor{.words = words, .n = n, .lanes = lanes, .chunk = (n + lanes - 1) / lanes};
  time_on_instance(state, exec, n * 4, [&] {
    Kokkos::parallel_reduce("read_stream",
                            Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, functor.lanes), functor,
                            Kokkos::BOr<std::uint32_t, Exec::memory_space>(result));
  });
  state.counters["n"] = static_cast<double>(n);
}

// The strategies the latency, cold and focused sweeps compare: Kokkos' own and ksync's fastest portable one
// (the main sweep above times every portable strategy of the rows).
constexpr std::array focus_strategies{reduce_strategy::kokkos, reduce_strategy::tuned};

void register_strategy(const std::string& name, std::int64_t n, reduce_op op, reduce_strategy strategy) {
  add_timed(name, n, time_reduce, op, strategy, timing::throughput);
}

}  // namespace

void register_reduce_benchmarks(bool smoke) {
  constexpr bool bridge = ksync::has_native_bridge<Exec>;
  for (const auto n : reduce_sweep_sizes(smoke, ksync::runs_on_host<Exec>)) {
    for (const auto strategy : ksync::implementations_of_half<reduce_strategy>(ksync::strategy_half::portable)) {
      register_strategy("portable/reduce/sum/float/" + std::string(ksync::to_string(strategy)), n, reduce_op::sum,
                        strategy);
    }
    if (bridge) register_strategy("bridge/reduce/sum/float/last_block", n, reduce_op::sum, reduce_strategy::last_block);
#if KSYNC_BENCH_CUB
    if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
      add_timed("cub/reduce/sum/float", n, time_cub_sum);
    }
#endif
    // One call from an idle instance to its fence, launch included.
    for (const auto strategy : focus_strategies) {
      add_timed("portable/reduce_latency/sum/float/" + std::string(ksync::to_string(strategy)), n, time_reduce,
                reduce_op::sum, strategy, timing::latency);
    }
#if KSYNC_HAS_KOKKOS_KERNELS
    add_timed("kokkos_kernels/sum/float", n, time_kokkos_kernels_sum);
#endif
    add_timed("portable/device_copy/float", n, device_copy, timing::throughput);
    add_timed("portable/read_stream/float", n, time_read_stream);
  }
  // Cold rows (GPU backends, whose L2 the hot rows' smaller sizes fit in): one call after the cache was
  // overwritten.
  for (const auto n : ksync::runs_on_host<Exec> ? std::vector<std::int64_t>{} : cold_sizes(smoke)) {
    const auto cold = timing::cold;
    for (const auto strategy : focus_strategies) {
      add_timed("portable/reduce_cold/sum/float/" + std::string(ksync::to_string(strategy)), n, time_reduce,
                reduce_op::sum, strategy, cold)
          ->Iterations(cold_samples(smoke));
    }
    add_timed("portable/device_copy_cold/float", n, device_copy, cold)->Iterations(cold_samples(smoke));
  }
  for (const auto n : reduce_focus_sizes(smoke)) {
    for (const auto op : {reduce_op::min, reduce_op::max}) {
      for (const auto strategy : focus_strategies) {
        register_strategy("portable/reduce/" + std::string(ksync::to_string(op)) + "/float/" +
                              std::string(ksync::to_string(strategy)),
                          n, op, strategy);
      }
    }
    for (const auto strategy : focus_strategies) {
      add_timed("portable/dot/float/" + std::string(ksync::to_string(strategy)), n, time_dot, strategy);
    }
#if KSYNC_HAS_KOKKOS_KERNELS
    add_timed("kokkos_kernels/dot/float", n, time_kokkos_kernels_dot);
#endif
  }
}

}  // namespace ksync::bench
