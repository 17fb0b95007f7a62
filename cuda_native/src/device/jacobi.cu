// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::jacobi: the argument checks and the dispatch to the forms (detail/jacobi/, one file each,
// listed in detail/jacobi/forms.cuh); jacobi_graph and barrier_timeouts.
#include <ksync/cuda/detail/graph_capture.hpp>
#include <ksync/cuda/detail/jacobi/forms.cuh>
#include <ksync/cuda/device/jacobi.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/runtime.hpp>
#include <ksync/detail/arguments.hpp>

#include <cstdint>
#include <utility>

namespace ksync::cuda {
namespace detail {

inline constexpr int max_sweeps_per_barrier = 256;

template <class T>
T* jacobi(cudaStream_t stream, T* u, T* scratch, std::int64_t n, int phases, jacobi_form form,
          const jacobi_tuning& tuning) {
  using jacobi_forms::where;
  check_argument(n >= 0, where, "n = ", n, " is negative");
  check_argument(phases >= 0, where, "phases = ", phases, " is negative");
  check_argument(n == 0 || (u != nullptr && scratch != nullptr), where, "u and scratch must not be null for n = ", n);
  check_argument(n == 0 || u != scratch, where, "u and scratch are the same buffer; the sweeps need two");
  check_argument(is_known(form), where, "form = ", static_cast<int>(form), " is not an jacobi_form");
  check_argument(runs_in(form, strategy_half::native), where, "form = ", ksync::to_string(form),
                 " is portable (Kokkos); ksync::cuda runs ", names_of_half<jacobi_form>{strategy_half::native});
  check_argument(tuning.block_size >= 1 && tuning.block_size <= 1024, where, "tuning.block_size = ", tuning.block_size,
                 " is outside [1, 1024]");
  check_argument(tuning.sweeps_per_barrier >= 1 && tuning.sweeps_per_barrier <= max_sweeps_per_barrier, where,
                 "tuning.sweeps_per_barrier = ", tuning.sweeps_per_barrier, " is outside [1, ", max_sweeps_per_barrier,
                 "]");
  T* result = phases % 2 == 0 ? u : scratch;
  if (n == 0 || phases == 0) return result;
  const jacobi_forms::jacobi_run<T> run{.stream = stream,
                                        .u = u,
                                        .scratch = scratch,
                                        .n = n,
                                        .phases = phases,
                                        .plan = jacobi_kernels::plan_rounds(phases, tuning.sweeps_per_barrier),
                                        .tuning = tuning,
                                        .device = stream_device(stream)};
  native_jacobi_forms::dispatch(where, form, [&]<class Form>() { Form::run(run); });
  return result;
}

template float* jacobi(cudaStream_t, float*, float*, std::int64_t, int, jacobi_form, const jacobi_tuning&);
template double* jacobi(cudaStream_t, double*, double*, std::int64_t, int, jacobi_form, const jacobi_tuning&);

}  // namespace detail

unsigned int barrier_timeouts(cudaStream_t stream) {
  const auto states = detail::jacobi_forms::stream_barrier_states(stream);
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
    if (n > 0) detail::jacobi_forms::enqueue_phases(capture, u, scratch, n, phases, block_size);
  });
}

template <class T>
jacobi_graph<T>::jacobi_graph(jacobi_graph&& other) noexcept
    : executable_(std::exchange(other.executable_, nullptr)), result_(other.result_) {}

template <class T>
jacobi_graph<T>& jacobi_graph<T>::operator=(jacobi_graph&& other) noexcept {
  if (this != &other) {
    detail::destroy_graph(executable_);
    executable_ = std::exchange(other.executable_, nullptr);
    result_ = other.result_;
  }
  return *this;
}

template <class T>
jacobi_graph<T>::~jacobi_graph() {
  detail::destroy_graph(executable_);
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
