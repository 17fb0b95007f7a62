// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the forms of ksync::cuda::jacobi share on the host: one call's arguments (jacobi_run), the barrier
// states in the stream's workspace, the persistent grid and the per-phase launches. Private to the native
// half (src/device/jacobi.cu); each form is one file beside it, listed in forms.cuh.
#pragma once

#include <ksync/cuda/detail/jacobi/kernels.cuh>
#include <ksync/cuda/detail/workspace.hpp>
#include <ksync/cuda/device/jacobi.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/grid/co_resident.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ksync::cuda::detail::jacobi_forms {

using jacobi_kernels::round_plan;

inline constexpr const char* where = "ksync::cuda::jacobi";

// One call of jacobi, checked: n > 0 and phases > 0.
template <class T>
struct jacobi_run {
  cudaStream_t stream;
  T* u;
  T* scratch;
  std::int64_t n;
  int phases;
  round_plan plan;
  jacobi_tuning tuning;
  int device;
};

// Where the barrier states live in a stream's workspace: one of each, on separate 128-byte lines.
struct barrier_states {
  spin_barrier_state* acquire_release;
  volatile_spin_barrier_state* volatile_flag;
};
inline barrier_states stream_barrier_states(cudaStream_t stream) {
  auto* base = static_cast<char*>(stream_workspace(stream).barrier_states);
  return {reinterpret_cast<spin_barrier_state*>(base), reinterpret_cast<volatile_spin_barrier_state*>(base + 128)};
}

inline unsigned int phase_blocks(std::int64_t n, int block_size) {
  return static_cast<unsigned int>(std::clamp<std::int64_t>((n + block_size - 1) / block_size, 1, 0x7fffffff));
}

// A persistent grid for `kernel`: co-resident with the tiles' shared memory (co_resident_grid throws
// std::invalid_argument when tuning.blocks_per_multiprocessor blocks cannot be), and no more blocks than
// points need.
template <class T, class Kernel>
grid_shape persistent_grid(const jacobi_run<T>& run, Kernel kernel) {
  const std::size_t tile_bytes = run.plan.tiled ? 2 *
                                                      (static_cast<std::size_t>(run.tuning.block_size) +
                                                       2 * static_cast<std::size_t>(run.tuning.sweeps_per_barrier)) *
                                                      sizeof(T)
                                                : 0;
  grid_shape grid = co_resident_grid(where, kernel, run.tuning.block_size, tile_bytes,
                                     run.tuning.blocks_per_multiprocessor, run.device);
  grid.blocks = std::min(grid.blocks, phase_blocks(run.n, run.tuning.block_size));
  return grid;
}

// The spin-barrier forms: one plain launch of a persistent grid (sized co-resident, so no further check is
// needed) with the barrier's state.
template <class T, class State>
void launch_spinning(const jacobi_run<T>& run, void (*kernel)(T*, T*, std::int64_t, round_plan, State*, std::uint64_t),
                     State* state) {
  const grid_shape grid = persistent_grid(run, kernel);
  kernel<<<grid.blocks, grid.block_size, grid.dynamic_shared_bytes, run.stream>>>(run.u, run.scratch, run.n, run.plan,
                                                                                  state, run.tuning.barrier_timeout_ns);
  KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::jacobi: persistent spin-barrier kernel");
}

template <class T>
void enqueue_phases(cudaStream_t stream, T* u, T* scratch, std::int64_t n, int phases, int block_size) {
  const unsigned int blocks = phase_blocks(n, block_size);
  for (int phase = 0; phase < phases; ++phase) {
    const bool even = phase % 2 == 0;
    jacobi_kernels::jacobi_phase_kernel<T>
        <<<blocks, block_size, 0, stream>>>(even ? u : scratch, even ? scratch : u, n);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::jacobi: jacobi_phase_kernel");
  }
}

}  // namespace ksync::cuda::detail::jacobi_forms
