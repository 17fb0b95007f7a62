// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::jacobi — a persistent iterative workload (docs/glossary.md: persistent kernel): `phases` Jacobi sweeps
// of the 1-D Laplace problem on n points with fixed ends (ksync/stencil.hpp), each sweep reading what the previous one
// wrote. The native forms of ksync::jacobi_form differ only in what separates two sweeps:
//   persistent_grid_sync         one cooperative kernel, grid.sync() (grid from the occupancy API);
//   persistent_spin_barrier      one kernel, spin_barrier_sync (acquire/release; co-residency checked);
//   persistent_volatile_barrier  one kernel, volatile_spin_barrier_sync (a volatile sense flag);
//   launch_per_phase             a kernel launch per sweep, ordered by the stream;
//   cuda_graph                   those launches captured into a CUDA graph once per (buffers, n, phases,
//                                block size) on this thread, then replayed (jacobi_graph for your own).
// Every form computes the same bits (the portable twin ksync::jacobi too). The sweeps alternate between u
// and scratch: the result lands in u after an even number of phases and in scratch after an odd one; the
// function returns that pointer. Asynchronous on `stream`.
//
// The persistent spin forms give up waiting after tuning.barrier_timeout_ns (possible only when something
// else holds the GPU's multiprocessors: the grid is checked co-resident before launch) instead of hanging;
// barrier_timeouts(stream) waits for the stream and returns how many blocks gave up since the last check.
//
// Fewer barriers (temporal blocking): with tuning.sweeps_per_barrier = w > 1 the persistent forms run up to
// w sweeps between two barriers. Each block copies its tile of blockDim.x points and w neighbours on each
// side into shared memory, sweeps there (the halo shrinks by one point per sweep, recomputing what the
// neighbouring tiles compute too), and writes back only its own tile. Same bits as one sweep per barrier;
// a barrier costs about a microsecond on an H200 (docs/synchronization.md), a shared-memory sweep tens of
// nanoseconds, so small phases get cheaper by up to w times.
#pragma once

#include <ksync/cuda/value_types.hpp>
#include <ksync/types.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

namespace ksync::cuda {

struct jacobi_tuning {
  int block_size = 256;
  // Persistent forms: blocks per multiprocessor (0: as many as fit); the grid never exceeds one thread
  // per point.
  int blocks_per_multiprocessor = 1;
  std::uint64_t barrier_timeout_ns = 2'000'000'000;  // persistent spin forms: 2 s
  // Persistent forms: at most this many sweeps between two grid barriers, in [1, 256] (see above).
  int sweeps_per_barrier = 1;
};

namespace detail {
template <class T>
T* jacobi(cudaStream_t stream, T* u, T* scratch, std::int64_t n, int phases, jacobi_form form,
          const jacobi_tuning& tuning);
}  // namespace detail

// Throws std::invalid_argument for n < 0, phases < 0, null or identical buffers (n > 0), a portable form,
// a block size outside [1, 1024], sweeps_per_barrier outside [1, 256], or a persistent grid that cannot be
// resident at once.
template <class T>
T* jacobi(cudaStream_t stream, T* u, T* scratch, std::int64_t n, int phases, jacobi_form form,
          const jacobi_tuning& tuning = {}) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "ksync::cuda::jacobi supports float and double");
  return detail::jacobi(stream, u, scratch, n, phases, form, tuning);
}

// Blocks of the persistent spin forms on `stream` that timed out since the last call (waits for the stream).
[[nodiscard]] unsigned int barrier_timeouts(cudaStream_t stream);

// The phases of jacobi as one CUDA graph, captured once and launched as often as needed: what the
// cuda_graph form does, with the graph's lifetime in your hands. Moves, never copies.
template <class T>
class jacobi_graph {
 public:
  jacobi_graph(T* u, T* scratch, std::int64_t n, int phases, int block_size = 256);
  jacobi_graph(jacobi_graph&& other) noexcept;
  jacobi_graph& operator=(jacobi_graph&& other) noexcept;
  jacobi_graph(const jacobi_graph&) = delete;
  jacobi_graph& operator=(const jacobi_graph&) = delete;
  ~jacobi_graph();
  // Enqueues every phase on `stream`; returns where the result lands (as jacobi does).
  T* launch(cudaStream_t stream) const;

 private:
  cudaGraphExec_t executable_ = nullptr;
  T* result_ = nullptr;
};

}  // namespace ksync::cuda
