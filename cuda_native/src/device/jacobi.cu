// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/detail/error.hpp>
#include <ksync/cuda/detail/runtime.hpp>
#include <ksync/cuda/detail/workspace.hpp>
#include <ksync/cuda/device/grid.cuh>
#include <ksync/cuda/device/jacobi.hpp>
#include <ksync/cuda/device/spin_barrier.cuh>
#include <ksync/stencil.hpp>

#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <tuple>
#include <utility>

namespace ksync::cuda {
namespace detail {
namespace {

constexpr const char* where = "ksync::cuda::jacobi";

// One sweep by the whole grid: next[i] for every i of this thread's grid-stride slice. Data bound: n.
template <class T>
__device__ void sweep(const T* current, T* next, std::int64_t n) {
  for (std::int64_t i = grid_stride_begin(); i < n; i += grid_stride()) {
    next[i] = (i == 0 || i == n - 1) ? current[i] : jacobi_update(current[i - 1], current[i + 1]);
  }
}

// Phase p reads one buffer and writes the other: u -> scratch on even phases, scratch -> u on odd ones.
template <class T>
__device__ void sweep_phase(T* u, T* scratch, std::int64_t n, int phase) {
  if (phase % 2 == 0) {
    sweep<T>(u, scratch, n);
  } else {
    sweep<T>(scratch, u, n);
  }
}

template <class T>
__global__ void jacobi_phase_kernel(const T* current, T* next, std::int64_t n) {
  sweep(current, next, n);
}

template <class T>
__global__ void jacobi_grid_sync_kernel(T* u, T* scratch, std::int64_t n, int phases) {
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (int phase = 0; phase < phases; ++phase) {
    sweep_phase(u, scratch, n, phase);
    // Participation: every thread of every block of the cooperative grid (phase and phases are uniform, so
    // all reach it; the launcher checked the grid co-resident). Data: next[0, n), written by the grid-stride
    // slices. Publishes this sweep to the next one, whose slices read other blocks' points.
    if (phase + 1 < phases) grid.sync();
  }
}

template <class T>
__global__ void jacobi_spin_kernel(T* u, T* scratch, std::int64_t n, int phases, spin_barrier_state* state,
                                   std::uint64_t timeout_ns) {
  for (int phase = 0; phase < phases; ++phase) {
    sweep_phase(u, scratch, n, phase);
    // Participation: every thread of every block of the grid (uniform condition; co-residency checked before
    // launch). Data: next[0, n). Publishes this sweep (release/acquire) to the next; a block that times out
    // stops, leaving the count in state->timed_out.
    if (phase + 1 < phases && !spin_barrier_sync(state, timeout_ns)) return;
  }
}

template <class T>
__global__ void jacobi_volatile_kernel(T* u, T* scratch, std::int64_t n, int phases, volatile_spin_barrier_state* state,
                                       std::uint64_t timeout_ns) {
  // Every block reads the flag's parity before its first arrival, and the flag cannot flip before every
  // block has arrived: all blocks start from the same parity, whatever earlier launches left.
  unsigned int sense = *static_cast<volatile unsigned int*>(&state->sense);
  for (int phase = 0; phase < phases; ++phase) {
    sweep_phase(u, scratch, n, phase);
    // Participation: every thread of every block of the grid (uniform condition; co-residency checked before
    // launch). Data: next[0, n). Publishes this sweep (fences around the volatile flag) to the next.
    if (phase + 1 < phases && !volatile_spin_barrier_sync(state, sense, timeout_ns)) return;
  }
}

// Where the barrier states live in a stream's workspace: one of each, on separate 128-byte lines.
struct barrier_states {
  spin_barrier_state* acquire_release;
  volatile_spin_barrier_state* volatile_flag;
};
barrier_states stream_barrier_states(cudaStream_t stream) {
  auto* base = static_cast<char*>(stream_workspace(stream).barrier_states);
  return {reinterpret_cast<spin_barrier_state*>(base), reinterpret_cast<volatile_spin_barrier_state*>(base + 128)};
}

unsigned int phase_blocks(std::int64_t n, int block_size) {
  return static_cast<unsigned int>(std::clamp<std::int64_t>((n + block_size - 1) / block_size, 1, 0x7fffffff));
}

// A persistent grid: co-resident, and no more blocks than points need.
template <class Kernel>
grid_shape persistent_grid(Kernel kernel, std::int64_t n, const jacobi_tuning& tuning, int device) {
  grid_shape grid = co_resident_grid(where, kernel, tuning.block_size, 0, tuning.blocks_per_multiprocessor, device);
  grid.blocks = std::min(grid.blocks, phase_blocks(n, tuning.block_size));
  return grid;
}

// The spin-barrier forms: one plain launch of a grid persistent_grid() sized co-resident (co_resident_grid
// refuses more blocks per multiprocessor than fit, so no further check is needed).
template <class T, class State>
void launch_spinning(void (*kernel)(T*, T*, std::int64_t, int, State*, std::uint64_t), State* state,
                     cudaStream_t stream, T* u, T* scratch, std::int64_t n, int phases, const jacobi_tuning& tuning,
                     int device) {
  const grid_shape grid = persistent_grid(kernel, n, tuning, device);
  kernel<<<grid.blocks, grid.block_size, 0, stream>>>(u, scratch, n, phases, state, tuning.barrier_timeout_ns);
  KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::jacobi: persistent spin-barrier kernel");
}

template <class T>
void enqueue_phases(cudaStream_t stream, T* u, T* scratch, std::int64_t n, int phases, int block_size) {
  const unsigned int blocks = phase_blocks(n, block_size);
  for (int phase = 0; phase < phases; ++phase) {
    const bool even = phase % 2 == 0;
    jacobi_phase_kernel<T><<<blocks, block_size, 0, stream>>>(even ? u : scratch, even ? scratch : u, n);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::jacobi: jacobi_phase_kernel");
  }
}

// The cuda_graph form's graph, kept per thread for the last (buffers, n, phases, block size, device) used.
template <class T>
struct cached_graph {
  std::tuple<T*, T*, std::int64_t, int, int, int> key{nullptr, nullptr, -1, -1, -1, -1};
  std::unique_ptr<jacobi_graph<T>> graph;
};

}  // namespace

template <class T>
T* jacobi(cudaStream_t stream, T* u, T* scratch, std::int64_t n, int phases, iteration_form form,
          const jacobi_tuning& tuning) {
  check_argument(n >= 0, where, "n = ", n, " is negative");
  check_argument(phases >= 0, where, "phases = ", phases, " is negative");
  check_argument(n == 0 || (u != nullptr && scratch != nullptr), where, "u and scratch must not be null for n = ", n);
  check_argument(n == 0 || u != scratch, where, "u and scratch are the same buffer; the sweeps need two");
  check_argument(is_native(form), where, "form = ", ksync::to_string(form),
                 " is portable (Kokkos); ksync::cuda runs the native forms");
  check_argument(tuning.block_size >= 1 && tuning.block_size <= 1024, where, "tuning.block_size = ", tuning.block_size,
                 " is outside [1, 1024]");
  T* result = phases % 2 == 0 ? u : scratch;
  if (n == 0 || phases == 0) return result;
  const int device = stream_device(stream);
  switch (form) {
    case iteration_form::persistent_grid_sync: {
      const auto kernel = jacobi_grid_sync_kernel<T>;
      launch_cooperative(where, kernel, persistent_grid(kernel, n, tuning, device), stream, u, scratch, n, phases);
      break;
    }
    case iteration_form::persistent_spin_barrier:
      launch_spinning(jacobi_spin_kernel<T>, stream_barrier_states(stream).acquire_release, stream, u, scratch, n,
                      phases, tuning, device);
      break;
    case iteration_form::persistent_volatile_barrier:
      launch_spinning(jacobi_volatile_kernel<T>, stream_barrier_states(stream).volatile_flag, stream, u, scratch, n,
                      phases, tuning, device);
      break;
    case iteration_form::launch_per_phase:
      enqueue_phases(stream, u, scratch, n, phases, tuning.block_size);
      break;
    default: {  // cuda_graph
      thread_local cached_graph<T> cache;
      const auto key = std::make_tuple(u, scratch, n, phases, tuning.block_size, device);
      if (!cache.graph || cache.key != key) {
        cache.graph = std::make_unique<jacobi_graph<T>>(u, scratch, n, phases, tuning.block_size);
        cache.key = key;
      }
      cache.graph->launch(stream);
      break;
    }
  }
  return result;
}

template float* jacobi(cudaStream_t, float*, float*, std::int64_t, int, iteration_form, const jacobi_tuning&);
template double* jacobi(cudaStream_t, double*, double*, std::int64_t, int, iteration_form, const jacobi_tuning&);

}  // namespace detail

unsigned int barrier_timeouts(cudaStream_t stream) {
  const auto states = detail::stream_barrier_states(stream);
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));
  spin_barrier_state acquire_release{};
  volatile_spin_barrier_state volatile_flag{};
  KSYNC_CUDA_CHECK(cudaMemcpy(&acquire_release, states.acquire_release, sizeof(acquire_release), cudaMemcpyDefault));
  KSYNC_CUDA_CHECK(cudaMemcpy(&volatile_flag, states.volatile_flag, sizeof(volatile_flag), cudaMemcpyDefault));
  const unsigned int timed_out = acquire_release.timed_out + volatile_flag.timed_out;
  // A round some blocks gave up on leaves its arrival count behind: start both barriers afresh.
  if (timed_out > 0) {
    KSYNC_CUDA_CHECK(cudaMemset(states.acquire_release, 0, sizeof(spin_barrier_state)));
    KSYNC_CUDA_CHECK(cudaMemset(states.volatile_flag, 0, sizeof(volatile_spin_barrier_state)));
  }
  return timed_out;
}

template <class T>
jacobi_graph<T>::jacobi_graph(T* u, T* scratch, std::int64_t n, int phases, int block_size)
    : result_(phases % 2 == 0 ? u : scratch) {
  constexpr const char* graph_where = "ksync::cuda::jacobi_graph";
  detail::check_argument(n >= 0 && phases >= 0, graph_where, "n = ", n, " and phases = ", phases,
                         " must not be negative");
  detail::check_argument(n == 0 || (u != nullptr && scratch != nullptr && u != scratch), graph_where,
                         "u and scratch must be two distinct non-null buffers for n = ", n);
  detail::check_argument(block_size >= 1 && block_size <= 1024, graph_where, "block_size = ", block_size,
                         " is outside [1, 1024]");
  // Capture the launches on a private stream (relaxed mode: other threads' CUDA calls stay legal).
  cudaStream_t capture = nullptr;
  KSYNC_CUDA_CHECK(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  try {
    KSYNC_CUDA_CHECK(cudaStreamBeginCapture(capture, cudaStreamCaptureModeRelaxed));
    try {
      if (n > 0) detail::enqueue_phases(capture, u, scratch, n, phases, block_size);
    } catch (...) {
      (void)cudaStreamEndCapture(capture, &graph);
      throw;
    }
    KSYNC_CUDA_CHECK(cudaStreamEndCapture(capture, &graph));
    KSYNC_CUDA_CHECK(cudaGraphInstantiate(&executable_, graph, 0));
  } catch (...) {
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
    (void)cudaStreamDestroy(capture);
    throw;
  }
  (void)cudaGraphDestroy(graph);
  (void)cudaStreamDestroy(capture);
}

template <class T>
jacobi_graph<T>::jacobi_graph(jacobi_graph&& other) noexcept
    : executable_(std::exchange(other.executable_, nullptr)), result_(other.result_) {}

template <class T>
jacobi_graph<T>& jacobi_graph<T>::operator=(jacobi_graph&& other) noexcept {
  if (this != &other) {
    if (executable_ != nullptr) (void)cudaGraphExecDestroy(executable_);
    executable_ = std::exchange(other.executable_, nullptr);
    result_ = other.result_;
  }
  return *this;
}

template <class T>
jacobi_graph<T>::~jacobi_graph() {
  if (executable_ != nullptr) (void)cudaGraphExecDestroy(executable_);
}

template <class T>
T* jacobi_graph<T>::launch(cudaStream_t stream) const {
  detail::check_argument(executable_ != nullptr, "ksync::cuda::jacobi_graph::launch", "the graph was moved from");
  KSYNC_CUDA_CHECK(cudaGraphLaunch(executable_, stream));
  return result_;
}

template class jacobi_graph<float>;
template class jacobi_graph<double>;

}  // namespace ksync::cuda
