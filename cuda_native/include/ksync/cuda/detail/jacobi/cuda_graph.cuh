// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// jacobi_form::cuda_graph — the per-phase launches captured once into a CUDA graph (jacobi_graph) and
// replayed: the graph is kept per thread for the last (buffers, n, phases, block size, device) used.
#pragma once

#include <ksync/cuda/detail/jacobi/context.cuh>
#include <ksync/cuda/device/jacobi.hpp>
#include <ksync/detail/strategy_table.hpp>

#include <cstdint>
#include <memory>
#include <tuple>

namespace ksync::cuda::detail::jacobi_forms {

struct cuda_graph : ksync::detail::implements<jacobi_form::cuda_graph> {
  template <class T>
  static void run(const jacobi_run<T>& run) {
    struct cached_graph {
      std::tuple<T*, T*, std::int64_t, int, int, int> key{nullptr, nullptr, -1, -1, -1, -1};
      std::unique_ptr<jacobi_graph<T>> graph;
    };
    thread_local cached_graph cache;
    const auto key = std::make_tuple(run.u, run.scratch, run.n, run.phases, run.tuning.block_size, run.device);
    if (!cache.graph || cache.key != key) {
      cache.graph = std::make_unique<jacobi_graph<T>>(run.u, run.scratch, run.n, run.phases, run.tuning.block_size);
      cache.key = key;
    }
    cache.graph->launch(run.stream);
  }
};

}  // namespace ksync::cuda::detail::jacobi_forms
