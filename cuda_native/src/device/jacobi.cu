// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/detail/graph_capture.hpp>
#include <ksync/cuda/detail/workspace.hpp>
#include <ksync/cuda/device/grid.cuh>
#include <ksync/cuda/device/jacobi.hpp>
#include <ksync/cuda/device/spin_barrier.cuh>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/runtime.hpp>
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
constexpr int max_sweeps_per_barrier = 256;

// One sweep by the whole grid: next[i] for every i of this thread's grid-stride slice. Data bound: n.
template <class T>
__device__ void sweep(const T* current, T* next, std::int64_t n) {
  for (std::int64_t i = grid_stride_begin(); i < n; i += grid_stride()) {
    next[i] = (i == 0 || i == n - 1) ? current[i] : jacobi_update(current[i - 1], current[i + 1]);
  }
}

// The persistent forms run the phases in rounds separated by a grid barrier: `rounds` rounds, the first
// `longer` of them sweeps + 1 sweeps long, the others `sweeps`. Round r reads u on even r and scratch on odd
// ones and writes the other, so the round count has the parity of the phase count: the result lands where
// one sweep per round leaves it.
struct round_plan {
  int rounds = 0;
  int sweeps = 1;
  int longer = 0;
  bool tiled = false;  // rounds sweep tiles in shared memory (sweeps_per_barrier > 1)
};

round_plan plan_rounds(int phases, int sweeps_per_barrier) {
  int rounds = (phases + sweeps_per_barrier - 1) / sweeps_per_barrier;
  // One round more when the parity differs; still rounds <= phases (rounds == phases has the same parity),
  // and no round longer than sweeps_per_barrier.
  if (rounds % 2 != phases % 2) ++rounds;
  return {.rounds = rounds, .sweeps = phases / rounds, .longer = phases % rounds, .tiled = sweeps_per_barrier > 1};
}

// `sweeps` sweeps from `current` to `next`, a tile of blockDim.x points at a time in shared memory (`tile`
// holds two buffers of blockDim.x + 2 * sweeps values). The block loads its tile and `sweeps` neighbours on
// each side (fewer at the ends of [0, n)); sweep s recomputes every point whose inputs are still valid —
// the valid range shrinks by one point on each open side per sweep — so after the last one the tile's own
// points hold exactly what `sweeps` global sweeps would give.
template <class T>
__device__ void tiled_sweeps(const T* current, T* next, std::int64_t n, int sweeps, T* tile) {
  const std::int64_t width = blockDim.x;
  T* read = tile;
  T* write = tile + width + 2 * sweeps;
  // The tile loop's bounds depend only on blockIdx: every thread of the block runs every iteration, so every
  // thread reaches the __syncthreads below.
  for (std::int64_t start = blockIdx.x * width; start < n; start += static_cast<std::int64_t>(gridDim.x) * width) {
    const std::int64_t end = start + width < n ? start + width : n;
    const std::int64_t origin = start - sweeps;  // tile[k] holds point origin + k
    const std::int64_t low = origin > 0 ? origin : 0;
    const std::int64_t high = end + sweeps < n ? end + sweeps : n;
    for (std::int64_t g = low + threadIdx.x; g < high; g += width)
      read[g - origin] = current[g];
    // Participation: the whole block (see the loop). Data: read[low, high) of the tile, loaded above.
    // Publishes the loaded points to the threads that sweep their neighbours.
    __syncthreads();
    for (int s = 1; s <= sweeps; ++s) {
      const std::int64_t from = low == 0 ? 0 : low + s;
      const std::int64_t to = high == n ? n : high - s;
      for (std::int64_t g = from + threadIdx.x; g < to; g += width) {
        const std::int64_t k = g - origin;
        write[k] = (g == 0 || g == n - 1) ? read[k] : jacobi_update(read[k - 1], read[k + 1]);
      }
      // Participation: the whole block (s and sweeps are uniform). Data: write[from, to). Publishes this
      // sweep to the next one's neighbour reads, and ends this sweep's reads of `read` before it is written.
      __syncthreads();
      T* const swept = write;
      write = read;
      read = swept;
    }
    for (std::int64_t g = start + threadIdx.x; g < end; g += width)
      next[g] = read[g - origin];
    // Participation: the whole block. Data: none published; ends the reads of `read` above before the next
    // tile loads into it.
    __syncthreads();
  }
}

// Round r of `plan`: u -> scratch on even rounds, scratch -> u on odd ones.
template <class T>
__device__ void run_round(T* u, T* scratch, std::int64_t n, const round_plan& plan, int round) {
  const T* current = round % 2 == 0 ? u : scratch;
  T* next = round % 2 == 0 ? scratch : u;
  if (!plan.tiled) {
    sweep<T>(current, next, n);
    return;
  }
  extern __shared__ unsigned char jacobi_tile[];
  tiled_sweeps<T>(current, next, n, plan.sweeps + (round < plan.longer ? 1 : 0), reinterpret_cast<T*>(jacobi_tile));
}

template <class T>
__global__ void jacobi_phase_kernel(const T* current, T* next, std::int64_t n) {
  sweep(current, next, n);
}

template <class T>
__global__ void jacobi_grid_sync_kernel(T* u, T* scratch, std::int64_t n, round_plan plan) {
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (int round = 0; round < plan.rounds; ++round) {
    run_round(u, scratch, n, plan, round);
    // Participation: every thread of every block of the cooperative grid (round and plan are uniform, so
    // all reach it; the launcher checked the grid co-resident). Data: next[0, n), written by the blocks'
    // slices or tiles. Publishes this round to the next one, which reads other blocks' points.
    if (round + 1 < plan.rounds) grid.sync();
  }
}

template <class T>
__global__ void jacobi_spin_kernel(T* u, T* scratch, std::int64_t n, round_plan plan, spin_barrier_state* state,
                                   std::uint64_t timeout_ns) {
  for (int round = 0; round < plan.rounds; ++round) {
    run_round(u, scratch, n, plan, round);
    // Participation: every thread of every block of the grid (uniform condition; co-residency checked before
    // launch). Data: next[0, n). Publishes this round (release/acquire) to the next; a block that times out
    // stops, leaving the count in state->timed_out.
    if (round + 1 < plan.rounds && !spin_barrier_sync(state, timeout_ns)) return;
  }
}

template <class T>
__global__ void jacobi_volatile_kernel(T* u, T* scratch, std::int64_t n, round_plan plan,
                                       volatile_spin_barrier_state* state, std::uint64_t timeout_ns) {
  // Every block reads the flag's parity before its first arrival, and the flag cannot flip before every
  // block has arrived: all blocks start from the same parity, whatever earlier launches left.
  unsigned int sense = *static_cast<volatile unsigned int*>(&state->sense);
  for (int round = 0; round < plan.rounds; ++round) {
    run_round(u, scratch, n, plan, round);
    // Participation: every thread of every block of the grid (uniform condition; co-residency checked before
    // launch). Data: next[0, n). Publishes this round (fences around the volatile flag) to the next.
    if (round + 1 < plan.rounds && !volatile_spin_barrier_sync(state, sense, timeout_ns)) return;
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

// A persistent grid: co-resident with the tiles' shared memory, and no more blocks than points need.
template <class T, class Kernel>
grid_shape persistent_grid(Kernel kernel, std::int64_t n, const round_plan& plan, const jacobi_tuning& tuning,
                           int device) {
  const std::size_t tile_bytes = plan.tiled ? 2 *
                                                  (static_cast<std::size_t>(tuning.block_size) +
                                                   2 * static_cast<std::size_t>(tuning.sweeps_per_barrier)) *
                                                  sizeof(T)
                                            : 0;
  grid_shape grid =
      co_resident_grid(where, kernel, tuning.block_size, tile_bytes, tuning.blocks_per_multiprocessor, device);
  grid.blocks = std::min(grid.blocks, phase_blocks(n, tuning.block_size));
  return grid;
}

// The spin-barrier forms: one plain launch of a grid persistent_grid() sized co-resident (co_resident_grid
// refuses more blocks per multiprocessor than fit, so no further check is needed).
template <class T, class State>
void launch_spinning(void (*kernel)(T*, T*, std::int64_t, round_plan, State*, std::uint64_t), State* state,
                     cudaStream_t stream, T* u, T* scratch, std::int64_t n, const round_plan& plan,
                     const jacobi_tuning& tuning, int device) {
  const grid_shape grid = persistent_grid<T>(kernel, n, plan, tuning, device);
  kernel<<<grid.blocks, grid.block_size, grid.dynamic_shared_bytes, stream>>>(u, scratch, n, plan, state,
                                                                              tuning.barrier_timeout_ns);
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
  check_argument(tuning.sweeps_per_barrier >= 1 && tuning.sweeps_per_barrier <= max_sweeps_per_barrier, where,
                 "tuning.sweeps_per_barrier = ", tuning.sweeps_per_barrier, " is outside [1, ", max_sweeps_per_barrier,
                 "]");
  T* result = phases % 2 == 0 ? u : scratch;
  if (n == 0 || phases == 0) return result;
  const int device = stream_device(stream);
  const round_plan plan = plan_rounds(phases, tuning.sweeps_per_barrier);
  switch (form) {
    case iteration_form::persistent_grid_sync: {
      const auto kernel = jacobi_grid_sync_kernel<T>;
      launch_cooperative(where, kernel, persistent_grid<T>(kernel, n, plan, tuning, device), stream, u, scratch, n,
                         plan);
      break;
    }
    case iteration_form::persistent_spin_barrier:
      launch_spinning(jacobi_spin_kernel<T>, stream_barrier_states(stream).acquire_release, stream, u, scratch, n, plan,
                      tuning, device);
      break;
    case iteration_form::persistent_volatile_barrier:
      launch_spinning(jacobi_volatile_kernel<T>, stream_barrier_states(stream).volatile_flag, stream, u, scratch, n,
                      plan, tuning, device);
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
  // A round some blocks gave up on leaves its arrival count behind: start both barriers afresh (on `stream`,
  // which orders the reset before the next kernel that uses them).
  if (timed_out > 0) {
    KSYNC_CUDA_CHECK(cudaMemsetAsync(states.acquire_release, 0, sizeof(spin_barrier_state), stream));
    KSYNC_CUDA_CHECK(cudaMemsetAsync(states.volatile_flag, 0, sizeof(volatile_spin_barrier_state), stream));
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
  executable_ = detail::capture_graph([&](cudaStream_t capture) {
    if (n > 0) detail::enqueue_phases(capture, u, scratch, n, phases, block_size);
  });
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
