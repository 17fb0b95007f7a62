// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Index functors in hand-written CUDA: BabelStream's Copy, Mul, Add, Triad through ksync::cuda::parallel_for
// (every native strategy) beside one hand-written kernel per kernel, as BabelStream's CUDA model writes them
// (one index per thread, blocks of 1024), and Dot through ksync::cuda::parallel_reduce (every native reduce
// strategy), by a hand-written kernel (per-block shared-memory tree, as BabelStream's) and by CUB
// (DeviceReduce::Sum over the products). float and double; the portable suite
// has Kokkos' RangePolicy and the portable strategies over the same functors. The ceiling is the reduce
// suite's native/device_copy/float at the same sizes. The 2-D rows, over square row-major arrays whose extent
// is the argument: <source>/stream/2d_copy and 2d_triad (f(i, j)) set the 2-D form against a hand-written
// kernel on a 2-D grid; native/stream/2d_dot (f(i, j, sum)) against the 1-D dot rows at n = extent^2.
#include "../stream_kernels.hpp"
#include "native.cuh"

#include <ksync/cuda/device/parallel_for.cuh>
#include <ksync/cuda/device/parallel_reduce.cuh>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>

#include <benchmark/benchmark.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_reduce.cuh>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace ksync::bench {
namespace {

using ksync::cuda::device_buffer;

// A device array indexed as Kokkos Views are, a(i): the functors of stream_kernels.hpp take either.
template <class T>
struct device_array {
  T* data;
  template <class Index>
  __device__ T& operator()(Index i) const {
    return data[i];
  }
};

template <class T>
__global__ void fill(T* data, std::int64_t n, T value) {
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    data[i] = value;
}

// a = 1, b = 2, c = 3, filled on the device (a host copy of 2^30 doubles would take seconds a row).
template <class T>
struct stream_arrays {
  device_buffer<T> a, b, c;
  explicit stream_arrays(std::int64_t n)
      : a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n)), c(static_cast<std::size_t>(n)) {
    fill<<<1024, 256, 0, cudaStreamPerThread>>>(a.data(), n, static_cast<T>(stream::initial_a));
    fill<<<1024, 256, 0, cudaStreamPerThread>>>(b.data(), n, static_cast<T>(stream::initial_b));
    fill<<<1024, 256, 0, cudaStreamPerThread>>>(c.data(), n, static_cast<T>(stream::initial_c));
    KSYNC_CUDA_CHECK(cudaGetLastError());
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  }
  [[nodiscard]] const T* array(int which) const { return which == 0 ? a.data() : which == 1 ? b.data() : c.data(); }
};

template <class T>
struct equals {
  T value;
  __host__ __device__ T operator()(std::int64_t /*i*/) const { return value; }
};

// BabelStream's CUDA model: one index per thread, blocks of 1024, a bound test.
constexpr int hand_written_block = 1024;
template <class F>
__global__ void __launch_bounds__(hand_written_block) hand_written_kernel(F f, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}

// Dot as BabelStream's CUDA model writes it: 4 blocks of 1024 per multiprocessor, grid-stride partial sums,
// a shared-memory tree per block, one atomicAdd per block into the result (zeroed on the stream first).
template <class T>
__global__ void __launch_bounds__(hand_written_block) hand_written_dot(const T* a, const T* b, std::int64_t n, T* sum) {
  __shared__ T partial[hand_written_block];
  T mine = 0;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    mine += a[i] * b[i];
  partial[threadIdx.x] = mine;
  for (int half = hand_written_block / 2; half > 0; half /= 2) {
    // Participation: every thread of the block (none has returned); data: partial[0, 2 half) holds this
    // round's values. Publishes the previous round's sums.
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < half) partial[threadIdx.x] += partial[threadIdx.x + half];
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

template <class T>
struct product {
  const T* a;
  const T* b;
  __host__ __device__ T operator()(std::int64_t i) const { return a[i] * b[i]; }
};

// One row: kernel k over n elements of T, by ksync::cuda::parallel_for with `strategy`, or (no strategy: the
// baseline) by the hand-written kernel.
template <class T>
void time_stream(benchmark::State& state, stream::kernel k, std::optional<index_strategy> strategy) {
  const std::int64_t n = state.range(0);
  const stream_arrays<T> arrays(n);
  const device_array<T> a{arrays.a.data()}, b{arrays.b.data()}, c{arrays.c.data()};
  const auto bytes = stream::arrays_moved(k) * n * static_cast<std::int64_t>(sizeof(T));
  stream::with_kernel<device_array<T>, T>(k, a, b, c, [&](const auto& functor) {
    time_on_stream(state, cudaStreamPerThread, bytes, [&] {
      if (!strategy) {
        const auto blocks = static_cast<unsigned int>((n + hand_written_block - 1) / hand_written_block);
        hand_written_kernel<<<blocks, hand_written_block, 0, cudaStreamPerThread>>>(functor, n);
        KSYNC_CUDA_CHECK(cudaGetLastError());
      } else {
        ksync::cuda::parallel_for(cudaStreamPerThread, n, functor, *strategy);
      }
    });
  });
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  check_elements(state, arrays.array(stream::written_array(k)), n, equals<T>{static_cast<T>(stream::expected_value(k))},
                 std::string(stream::name(k)));
  state.counters["n"] = static_cast<double>(n);
}

// Who computes a dot row.
enum class dot_by { hand_written, cub, ksync };

template <class T>
void time_dot(benchmark::State& state, dot_by who, reduce_strategy strategy) {
  const std::int64_t n = state.range(0);
  const stream_arrays<T> arrays(n);
  device_buffer<T> sum(1);
  const int device = ksync::cuda::stream_device(cudaStreamPerThread);
  const auto blocks = static_cast<unsigned int>(4 * ksync::cuda::multiprocessor_count(device));
  const auto products = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                        product<T>{arrays.a.data(), arrays.b.data()});
  std::size_t temp_bytes = 0;
  KSYNC_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, products, sum.data(), n, cudaStreamPerThread));
  device_buffer<unsigned char> temp(temp_bytes);
  const stream::dot<device_array<T>, T> functor{{arrays.a.data()}, {arrays.b.data()}};
  time_on_stream(state, cudaStreamPerThread, 2 * n * static_cast<std::int64_t>(sizeof(T)), [&] {
    if (who == dot_by::hand_written) {
      KSYNC_CUDA_CHECK(cudaMemsetAsync(sum.data(), 0, sizeof(T), cudaStreamPerThread));
      hand_written_dot<<<blocks, hand_written_block, 0, cudaStreamPerThread>>>(arrays.a.data(), arrays.b.data(), n,
                                                                               sum.data());
      KSYNC_CUDA_CHECK(cudaGetLastError());
    } else if (who == dot_by::cub) {
      KSYNC_CUDA_CHECK(cub::DeviceReduce::Sum(temp.data(), temp_bytes, products, sum.data(), n, cudaStreamPerThread));
    } else {
      ksync::cuda::parallel_reduce(cudaStreamPerThread, n, functor, sum.data(), strategy);
    }
  });
  const double value = static_cast<double>(sum.to_host().at(0));
  stream::check_dot(state, value, n);
}

// The 2-D rows: a(i, j) = data[i * cols + j], a C array's order, so the default iterate::right.
template <class T>
struct device_matrix {
  T* data;
  std::int64_t cols;
  template <class Index>
  __device__ T& operator()(Index i, Index j) const {
    return data[static_cast<std::int64_t>(i) * cols + j];
  }
};

// How hand-written CUDA usually maps a 2-D range: a 2-D grid of 32 x 8 blocks, x along the stride-1 index.
constexpr unsigned int tile_x = 32, tile_y = 8;
template <class F>
__global__ void __launch_bounds__(tile_x* tile_y) hand_written_kernel_2d(F f, std::int64_t rows, std::int64_t cols) {
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * tile_x + threadIdx.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.y) * tile_y + threadIdx.y;
  if (i < rows && j < cols) f(i, j);
}

// Copy or Triad over extent x extent elements, by ksync::cuda::parallel_for's 2-D form with `strategy`, or
// (no strategy) by the hand-written 2-D kernel.
template <class T>
void time_stream_pairs(benchmark::State& state, stream::kernel k, std::optional<index_strategy> strategy) {
  const std::int64_t extent = state.range(0);
  const std::int64_t n = extent * extent;
  const stream_arrays<T> arrays(n);
  const device_matrix<T> a{arrays.a.data(), extent}, b{arrays.b.data(), extent}, c{arrays.c.data(), extent};
  const auto bytes = stream::arrays_moved(k) * n * static_cast<std::int64_t>(sizeof(T));
  stream::with_kernel<device_matrix<T>, T>(k, a, b, c, [&](const auto& functor) {
    time_on_stream(state, cudaStreamPerThread, bytes, [&] {
      if (!strategy) {
        const dim3 grid(static_cast<unsigned int>((extent + tile_x - 1) / tile_x),
                        static_cast<unsigned int>((extent + tile_y - 1) / tile_y));
        hand_written_kernel_2d<<<grid, dim3(tile_x, tile_y), 0, cudaStreamPerThread>>>(functor, extent, extent);
        KSYNC_CUDA_CHECK(cudaGetLastError());
      } else {
        ksync::cuda::parallel_for(cudaStreamPerThread, extent, extent, functor, *strategy);
      }
    });
  });
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  check_elements(state, arrays.array(stream::written_array(k)), n, equals<T>{static_cast<T>(stream::expected_value(k))},
                 std::string(stream::name(k)));
  state.counters["n"] = static_cast<double>(n);
}

// Dot over extent x extent elements by ksync::cuda::parallel_reduce's 2-D form with `strategy`. Its baselines
// are the 1-D dot rows at n = extent^2 (the hand-written kernel and CUB): the data is one contiguous array.
template <class T>
void time_dot_pairs(benchmark::State& state, reduce_strategy strategy) {
  const std::int64_t extent = state.range(0);
  const std::int64_t n = extent * extent;
  const stream_arrays<T> arrays(n);
  device_buffer<T> sum(1);
  const stream::dot<device_matrix<T>, T> functor{{arrays.a.data(), extent}, {arrays.b.data(), extent}};
  time_on_stream(state, cudaStreamPerThread, 2 * n * static_cast<std::int64_t>(sizeof(T)), [&] {
    ksync::cuda::parallel_reduce(cudaStreamPerThread, extent, extent, functor, sum.data(), strategy);
  });
  stream::check_dot(state, static_cast<double>(sum.to_host().at(0)), n);
  state.counters["n"] = static_cast<double>(n);
}

template <class T>
void register_pairs(std::int64_t extent) {
  constexpr auto type = stream::type_name<T>();
  for (const auto k : {stream::kernel::copy, stream::kernel::triad}) {
    const std::string kernel_name = "2d_" + std::string(stream::name(k));
    add_timed(stream::row("cuda", kernel_name, type, "hand_written"), extent, time_stream_pairs<T>, k, std::nullopt);
    for (const auto strategy : ids_of_half<index_strategy>(strategy_half::native))
      add_timed(stream::row("native", kernel_name, type, to_string(strategy)), extent, time_stream_pairs<T>, k,
                strategy);
  }
  for (const auto strategy : ids_of_half<reduce_strategy>(strategy_half::native)) {
    if (strategy != reduce_strategy::automatic)
      add_timed(stream::row("native", "2d_dot", type, to_string(strategy)), extent, time_dot_pairs<T>, strategy);
  }
}

// The hand-written kernel, then ksync::cuda::parallel_for with every native strategy; then the dots: the
// hand-written kernel, CUB, and ksync::cuda::parallel_reduce with every native reduce strategy.
template <class T>
void register_type(std::int64_t n) {
  constexpr auto type = stream::type_name<T>();
  for (const auto k : stream::kernels) {
    add_timed(stream::row("cuda", stream::name(k), type, "hand_written"), n, time_stream<T>, k, std::nullopt);
    for (const auto strategy : ids_of_half<index_strategy>(strategy_half::native))
      add_timed(stream::row("native", stream::name(k), type, to_string(strategy)), n, time_stream<T>, k, strategy);
  }
  add_timed(stream::row("cuda", "dot", type, "hand_written"), n, time_dot<T>, dot_by::hand_written,
            reduce_strategy::automatic);
  add_timed(stream::row("cub", "dot", type), n, time_dot<T>, dot_by::cub, reduce_strategy::automatic);
  for (const auto strategy : ids_of_half<reduce_strategy>(strategy_half::native)) {
    if (strategy != reduce_strategy::automatic)
      add_timed(stream::row("native", "dot", type, to_string(strategy)), n, time_dot<T>, dot_by::ksync, strategy);
  }
}

}  // namespace

void register_parallel_for_benchmarks(bool smoke) {
  for (const auto n : stream::sizes(smoke, false)) {
    register_type<float>(n);
    register_type<double>(n);
  }
  for (const auto extent : stream::square_extents(smoke, false)) {
    register_pairs<float>(extent);
    register_pairs<double>(extent);
  }
}

}  // namespace ksync::bench
