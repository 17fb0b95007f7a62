// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Native device-wide reductions, side by side with the vendor baselines in one run: every ksync::cuda
// strategy against CUB DeviceReduce (sum, min, max), cuBLAS dot, and a device-to-device copy (the bandwidth
// ceiling, transform_bench.cu's too), all timed with CUDA events on one stream. The tuning knobs are swept at
// a launch-bound and a bandwidth-bound size.
#include "native.cuh"

#include <ksync/cuda/device/reduce.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>

#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace ksync::bench {
namespace {

using ksync::reduce_op;
using ksync::reduce_strategy;
using ksync::cuda::device_buffer;

template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  return "int64";
}

template <class T>
void check(benchmark::State& state, const device_buffer<T>& result, std::int64_t n, const char* what) {
  check_pattern_result(state, static_cast<double>(result.to_host().at(0)), n, what);
}

template <class T>
void time_native_reduce(benchmark::State& state, reduce_op op, reduce_strategy strategy,
                        ksync::cuda::reduce_tuning tuning, timing mode) {
  const std::int64_t n = state.range(0);
  const auto data = make_input<T>(n);
  device_buffer<T> result(1);
  try {
    time_on_stream(
        state, cudaStreamPerThread, n * static_cast<std::int64_t>(sizeof(T)),
        [&] {
          ksync::cuda::reduce(cudaStreamPerThread, data.data(), static_cast<std::size_t>(n), op, strategy,
                              result.data(), tuning);
        },
        mode);
  } catch (const std::invalid_argument& refusal) {  // e.g. a cluster size this device does not take
    refused(state, refusal.what());
    return;
  }
  check(state, result, n, std::string(ksync::to_string(op)).c_str());
  state.counters["n"] = static_cast<double>(n);
}

template <class T>
void time_cub_reduce(benchmark::State& state, reduce_op op, timing mode) {
  const std::int64_t n = state.range(0);
  const auto data = make_input<T>(n);
  device_buffer<T> result(1);
  const auto call = [&](void* temp, std::size_t& bytes) {
    switch (op) {
      case reduce_op::min:
        return cub::DeviceReduce::Min(temp, bytes, data.data(), result.data(), n, cudaStreamPerThread);
      case reduce_op::max:
        return cub::DeviceReduce::Max(temp, bytes, data.data(), result.data(), n, cudaStreamPerThread);
      default:
        return cub::DeviceReduce::Sum(temp, bytes, data.data(), result.data(), n, cudaStreamPerThread);
    }
  };
  std::size_t temp_bytes = 0;
  KSYNC_CUDA_CHECK(call(nullptr, temp_bytes));
  device_buffer<unsigned char> temp(temp_bytes);
  time_on_stream(
      state, cudaStreamPerThread, n * static_cast<std::int64_t>(sizeof(T)),
      [&] { KSYNC_CUDA_CHECK(call(temp.data(), temp_bytes)); }, mode);
  check(state, result, n, std::string(ksync::to_string(op)).c_str());
  state.counters["n"] = static_cast<double>(n);
}

void time_native_dot(benchmark::State& state, reduce_strategy strategy) {
  const std::int64_t n = state.range(0);
  const auto x = make_input<float>(n);
  const auto y = make_input<float>(n);
  device_buffer<float> result(1);
  time_on_stream(state, cudaStreamPerThread, 2 * n * 4, [&] {
    ksync::cuda::dot(cudaStreamPerThread, x.data(), y.data(), static_cast<std::size_t>(n), strategy, result.data());
  });
  check(state, result, n, "dot");
  state.counters["n"] = static_cast<double>(n);
}

// cuBLAS sdot with the result left in device memory (pointer mode device): asynchronous like ours.
void time_cublas_dot(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const auto x = make_input<float>(n);
  const auto y = make_input<float>(n);
  device_buffer<float> result(1);
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    row_failed(state, "cublasCreate failed");
    return;
  }
  cublasSetStream(handle, cudaStreamPerThread);
  cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE);
  time_on_stream(state, cudaStreamPerThread, 2 * n * 4, [&] {
    if (cublasSdot(handle, static_cast<int>(n), x.data(), 1, y.data(), 1, result.data()) != CUBLAS_STATUS_SUCCESS)
      row_failed(state, "cublasSdot failed");
  });
  cublasDestroy(handle);
  check(state, result, n, "dot");
  state.counters["n"] = static_cast<double>(n);
}

// The device's read rate, the reductions' ceiling: n floats read as 16-byte loads, four in flight per thread
// over a grid-stride walk (as the reductions read), their bits ORed. The one store is taken only for an OR of
// all ones, which the input (the floats 0 to 7) never gives; the compiler cannot drop the loads.
__global__ void __launch_bounds__(256) read_stream_kernel(const float* data, std::int64_t n, unsigned int* bits) {
  const auto* packs = reinterpret_cast<const uint4*>(data);
  const std::int64_t pack_count = n / 4;
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned int word = 0;
  for (; p + 3 * threads < pack_count; p += 4 * threads) {
    uint4 loaded[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      loaded[k] = __ldg(packs + p + k * threads);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      word |= loaded[k].x | loaded[k].y | loaded[k].z | loaded[k].w;
  }
  for (; p < pack_count; p += threads) {
    const uint4 loaded = __ldg(packs + p);
    word |= loaded.x | loaded.y | loaded.z | loaded.w;
  }
  const std::int64_t tail = pack_count * 4 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tail < n) word |= __float_as_uint(data[tail]);
  if (word == ~0u) *bits = word;
}

void time_native_read_stream(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const auto data = make_input<float>(n);
  device_buffer<unsigned int> bits(1);
  const int device = ksync::cuda::stream_device(cudaStreamPerThread);
  int resident = 0;
  KSYNC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, read_stream_kernel, 256, 0));
  // The resident grid, or fewer blocks where n gives each thread under four packs.
  const std::int64_t wanted = std::max<std::int64_t>(1, (n / 4 + 4 * 256 - 1) / (4 * 256));
  const auto blocks = static_cast<unsigned int>(
      std::min<std::int64_t>(wanted, static_cast<std::int64_t>(resident) * ksync::cuda::multiprocessor_count(device)));
  time_on_stream(state, cudaStreamPerThread, n * 4, [&] {
    read_stream_kernel<<<blocks, 256, 0, cudaStreamPerThread>>>(data.data(), n, bits.data());
    KSYNC_CUDA_CHECK(cudaGetLastError());
  });
  state.counters["n"] = static_cast<double>(n);
}

// The strategies the dot rows set beside cuBLAS's dot: the two-kernel reduction and the one-launch one
// (the main sweep above times every native strategy of the rows).
constexpr std::array dot_strategies{reduce_strategy::two_pass, reduce_strategy::last_block};

template <class T>
void register_operator_and_type_comparisons(std::int64_t n) {
  const std::string type = type_name<T>();
  for (const auto op : {reduce_op::sum, reduce_op::min, reduce_op::max}) {
    if (std::is_same_v<T, float> && op == reduce_op::sum) continue;  // the sweep has it
    const std::string name = std::string(ksync::to_string(op)) + "/" + type;
    add_timed("native/reduce/" + name + "/last_block", n, time_native_reduce<T>, op, reduce_strategy::last_block,
              ksync::cuda::reduce_tuning{}, timing::throughput);
    add_timed("cub/reduce/" + name, n, time_cub_reduce<T>, op, timing::throughput);
  }
}

}  // namespace

void register_reduce_benchmarks(bool smoke) {
  for (const auto n : reduce_sweep_sizes(smoke)) {
    for (const auto strategy : ksync::implementations_of_half<reduce_strategy>(ksync::strategy_half::native)) {
      add_timed("native/reduce/sum/float/" + std::string(ksync::to_string(strategy)), n, time_native_reduce<float>,
                reduce_op::sum, strategy, ksync::cuda::reduce_tuning{}, timing::throughput);
    }
    add_timed("cub/reduce/sum/float", n, time_cub_reduce<float>, reduce_op::sum, timing::throughput);
    // One call from an idle stream, launch included: where one launch instead of two shows most.
    add_timed("native/reduce_latency/sum/float/last_block", n, time_native_reduce<float>, reduce_op::sum,
              reduce_strategy::last_block, ksync::cuda::reduce_tuning{}, timing::latency);
    add_timed("cub/reduce_latency/sum/float", n, time_cub_reduce<float>, reduce_op::sum, timing::latency);
    add_timed("native/device_copy/float", n, device_copy, timing::throughput);
    add_timed("native/read_stream/float", n, time_native_read_stream);
  }
  // Cold rows: one call after the L2 was overwritten, where the hot rows' data fits in it.
  for (const auto n : cold_sizes(smoke)) {
    const auto cold = timing::cold;
    add_timed("native/reduce_cold/sum/float/last_block", n, time_native_reduce<float>, reduce_op::sum,
              reduce_strategy::last_block, ksync::cuda::reduce_tuning{}, cold)
        ->Iterations(cold_samples(smoke));
    add_timed("cub/reduce_cold/sum/float", n, time_cub_reduce<float>, reduce_op::sum, cold)
        ->Iterations(cold_samples(smoke));
    add_timed("native/device_copy_cold/float", n, device_copy, cold)->Iterations(cold_samples(smoke));
  }
  for (const auto n : reduce_focus_sizes(smoke)) {
    register_operator_and_type_comparisons<float>(n);
    register_operator_and_type_comparisons<double>(n);
    register_operator_and_type_comparisons<std::int32_t>(n);
    register_operator_and_type_comparisons<std::int64_t>(n);
    for (const auto strategy : dot_strategies) {
      add_timed("native/dot/float/" + std::string(ksync::to_string(strategy)), n, time_native_dot, strategy);
    }
    add_timed("cublas/dot/float", n, time_cublas_dot);
    // The knobs: block size x minimum items per thread x blocks per multiprocessor (0: all resident).
    for (const int block_size : {128, 256, 512}) {
      for (const int items : {4, 16, 64}) {
        for (const int blocks_per_sm : {0, 2, 4}) {
          const std::string knobs =
              "b" + std::to_string(block_size) + "_i" + std::to_string(items) + "_s" + std::to_string(blocks_per_sm);
          add_timed("native/reduce_tuning/sum/float/last_block/" + knobs, n, time_native_reduce<float>, reduce_op::sum,
                    reduce_strategy::last_block,
                    ksync::cuda::reduce_tuning{
                        .block_size = block_size, .items_per_thread = items, .blocks_per_sm = blocks_per_sm},
                    timing::throughput);
        }
      }
    }
    for (const int cluster_size : {1, 2, 4, 8, 16}) {
      add_timed("native/reduce_tuning/sum/float/cluster/c" + std::to_string(cluster_size), n, time_native_reduce<float>,
                reduce_op::sum, reduce_strategy::cluster, ksync::cuda::reduce_tuning{.cluster_size = cluster_size},
                timing::throughput);
    }
  }
}

}  // namespace ksync::bench
