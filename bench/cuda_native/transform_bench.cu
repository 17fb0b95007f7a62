// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Native ksync::cuda::transform (y = 2x), timed with CUDA events on one stream: the default tuning, the
// resident grid-stride loop and two packs per thread, a cold row, and the tuning knobs swept at a
// launch-bound and a bandwidth-bound size. The bandwidth ceiling to compare with, native/device_copy/float,
// is timed by reduce_bench.cu.
#include "native.cuh"

#include <ksync/cuda/device/transform.cuh>
#include <ksync/cuda/device_buffer.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

namespace ksync::bench {
namespace {

using ksync::cuda::device_buffer;

// y = 2x, the transform target: compare with native/device_copy/float (same bytes: read n, write n).
struct Twice {
  __device__ float operator()(float x) const { return 2.0f * x; }
};

void time_native_transform(benchmark::State& state, ksync::cuda::transform_tuning tuning, timing mode) {
  const std::int64_t n = state.range(0);
  const auto in = make_input<float>(n);
  device_buffer<float> out(static_cast<std::size_t>(n));
  time_on_stream(
      state, cudaStreamPerThread, 2 * n * 4,
      [&] {
        ksync::cuda::transform(cudaStreamPerThread, in.data(), static_cast<std::size_t>(n), out.data(), Twice{},
                               tuning);
      },
      mode);
  check_elements(state, out.data(), n, twice_pattern{}, "y = 2x");
  state.counters["n"] = static_cast<double>(n);
}

}  // namespace

void register_transform_benchmarks(bool smoke) {
  for (const auto n : reduce_sweep_sizes(smoke)) {
    add_timed("native/transform/float", n, time_native_transform, ksync::cuda::transform_tuning{}, timing::throughput);
    for (const int items : {0, 2}) {  // the resident grid-stride loop, and two packs per thread
      add_timed("native/transform/float/i" + std::to_string(items), n, time_native_transform,
                ksync::cuda::transform_tuning{.items_per_thread = items}, timing::throughput);
    }
  }
  // Cold rows: one call after the L2 was overwritten, where the hot rows' data fits in it.
  for (const auto n : cold_sizes(smoke)) {
    const auto cold = timing::cold;
    add_timed("native/transform_cold/float", n, time_native_transform, ksync::cuda::transform_tuning{}, cold)
        ->Iterations(cold_samples(smoke));
  }
  for (const auto n : reduce_focus_sizes(smoke)) {
    // The knobs: block size x grid (i0: resident blocks, grid-stride; iK: K packs per thread, as many
    // blocks as that takes) x streaming stores.
    for (const int block_size : {256, 512}) {
      for (const int items : {0, 1, 2, 4}) {
        for (const bool streaming : {false, true}) {
          const std::string knobs =
              "b" + std::to_string(block_size) + "_i" + std::to_string(items) + (streaming ? "_cs" : "_wb");
          add_timed("native/transform_tuning/float/" + knobs, n, time_native_transform,
                    ksync::cuda::transform_tuning{
                        .block_size = block_size, .items_per_thread = items, .streaming_stores = streaming},
                    timing::throughput);
        }
      }
    }
  }
}

}  // namespace ksync::bench
