// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::reduce and ksync::cuda::dot — device-wide reductions of device-resident values, hand-written
// in CUDA, by any of five strategies (ksync::reduce_strategy: two_pass, last_block, grid_sync, cluster,
// atomics; automatic = last_block). The portable twins are ksync::reduce / ksync::dot (src/ksync/reduce.hpp).
// Plain C++ header: callable from host code compiled by any compiler. CUDA translation units can reduce
// with their own functor through ksync::cuda::transform_reduce (device/reduce.cuh).
//
//   reduce(stream, data, n, op, strategy, result[, tuning])  asynchronous: *result (device memory) receives
//                                                            the result in stream order; nothing is synchronized.
//   auto r = reduce(stream, data, n, op[, strategy, tuning]) blocking: waits for the value from `stream` only.
//                                                            The kernel publishes it as its last store and may
//                                                            still be retiring when the call returns: later work
//                                                            on `stream` is ordered after it as always; on a
//                                                            device without concurrent managed access the call
//                                                            also waits for `stream` (mailbox.hpp).
//   reduce(stream, data, n, result) / reduce(stream, data, n)  the sum, automatic strategy.
//   dot(stream, x, y, n, strategy, result[, tuning]) / dot(stream, x, y, n[, strategy, tuning])
//
// Every strategy reads the input once: each thread keeps four independent accumulators over a grid-stride
// slice, with 16-byte loads when the data is 16-byte aligned, then the block combines its threads with
// warp shuffles. Indices are 64-bit: n may exceed 2^32. n == 0 gives the identity: 0 for sums; for min and
// max +-infinity (floating types) or the type's max / lowest (integers), as in Kokkos. Value types: int32,
// int64, float, double. Integer sums wrap like the hardware's adds.
//
// Floating-point results depend on the launch shape, not on timing: every strategy but `atomics` combines
// in a fixed order, so repeated calls with the same tuning on the same device return identical bits. Error
// bound of a sum (and of dot, over the products): |computed - exact| <= gamma(k) * sum |x_i|, with
// gamma(k) = k u / (1 - k u), u the unit roundoff of T, and k = ceil(n / P) + ceil(log2 P) + 3 where P is the
// number of threads launched (at most the resident threads of the device, e.g. 270,336 on an H200) — far
// below the gamma(n - 1) of a sequential sum.
#pragma once

#include <ksync/cuda/mailbox.hpp>
#include <ksync/cuda/value_types.hpp>
#include <ksync/types.hpp>

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>

namespace ksync::cuda {

// The block sizes the reduction kernels are compiled for (reduce_tuning::block_size); the argument check and
// the dispatch to the kernels both read this list.
inline constexpr std::array<int, 3> reduce_block_sizes{128, 256, 512};

// Launch knobs; zero means "ksync decides". The benchmark sweeps them.
struct reduce_tuning {
  int block_size = 256;      // threads per block: one of reduce_block_sizes (above)
  int items_per_thread = 0;  // the fewest elements one thread reads before another block is added (0: 16)
  int blocks_per_sm = 0;     // blocks per multiprocessor at most (0: as many as can be resident)
  int cluster_size = 8;      // reduce_strategy::cluster: blocks per cluster, one of cluster_sizes (cluster_support.hpp)
};

namespace detail {
// Where a reduction's result goes: `value` in device memory (an asynchronous call) or a mailbox slot (a blocking
// one); where `epoch.address` is set, the kernel that stores the value publishes the slot itself
// (mailbox::device_epoch).
template <class T>
struct reduce_target {
  T* value = nullptr;
  mailbox::device_epoch epoch{};
};

// The compiled entry points; their callers below have checked the arguments (check_reduce_arguments).
template <class T>
void reduce_values(cudaStream_t stream, const T* data, std::size_t n, reduce_op op, reduce_strategy strategy,
                   reduce_target<T> result, const reduce_tuning& tuning);
template <class T>
void dot_values(cudaStream_t stream, const T* x, const T* y, std::size_t n, reduce_strategy strategy,
                reduce_target<T> result, const reduce_tuning& tuning);
// Throws std::invalid_argument (naming `where`, the argument and its value) unless the inputs, strategy and
// tuning can be used: called before anything is allocated or enqueued.
void check_reduce_arguments(const char* where, const void* x, const void* y, std::size_t n, reduce_strategy strategy,
                            const reduce_tuning& tuning);
// Runs `enqueue(target)` on `stream` and brings the result home through the stream's mailbox
// (ksync/cuda/mailbox.hpp): the host waits for the value itself, not for a copy and a stream synchronization.
// `direct` (the work writes its result with one plain store): `target` is the mailbox slot itself (mapped host
// memory), and the kernel that stores the value publishes the slot's epoch behind it, so nothing else is
// enqueued; otherwise (atomics) a device slot, which post() copies home.
// Blocking calls on one stream from several host threads at once would share the stream's slots: the stream
// already serializes them on the device, and ksync asks callers to serialize them on the host too.
template <class T, class Enqueue>
T blocking_result(cudaStream_t stream, bool direct, Enqueue&& enqueue);
// Whether the native strategy (automatic: its choice) writes the result with one plain store.
[[nodiscard]] bool result_is_one_store(reduce_strategy strategy);
// The device result slot of `stream`'s workspace (detail/workspace.hpp).
void* workspace_device_result(cudaStream_t stream);
}  // namespace detail

// Asynchronous: enqueues op(data[0, n)) into *result on `stream`. `data` and `result` are device (or managed)
// pointers; `data` may be null only when n == 0. Throws std::invalid_argument for bad arguments (a strategy
// this half does not implement, a tuning knob out of range, a grid that cannot be co-resident for grid_sync,
// a cluster size the device refuses) and ksync::cuda::cuda_error when a CUDA call fails.
template <class T>
void reduce(cudaStream_t stream, const T* data, std::size_t n, reduce_op op, reduce_strategy strategy, T* result,
            const reduce_tuning& tuning = {}) {
  static_assert(is_value_type_v<T>, "ksync::cuda::reduce supports int32, int64, float and double");
  detail::check_reduce_arguments("ksync::cuda::reduce", data, data, n, strategy, tuning);
  detail::reduce_values(stream, data, n, op, strategy, {.value = result}, tuning);
}

// Blocking: returns op(data[0, n)) once `stream` has computed it (the host waits on the value itself, not on
// the stream: ksync/cuda/mailbox.hpp); nothing else is synchronized.
template <class T>
[[nodiscard]] T reduce(cudaStream_t stream, const T* data, std::size_t n, reduce_op op,
                       reduce_strategy strategy = reduce_strategy::automatic, const reduce_tuning& tuning = {}) {
  static_assert(is_value_type_v<T>, "ksync::cuda::reduce supports int32, int64, float and double");
  detail::check_reduce_arguments("ksync::cuda::reduce", data, data, n, strategy, tuning);
  return detail::blocking_result<T>(
      stream, detail::result_is_one_store(strategy),
      [&](detail::reduce_target<T> target) { detail::reduce_values(stream, data, n, op, strategy, target, tuning); });
}

// The sum, by the automatic strategy: asynchronous into *result, and blocking.
template <class T>
void reduce(cudaStream_t stream, const T* data, std::size_t n, T* result) {
  reduce(stream, data, n, reduce_op::sum, reduce_strategy::automatic, result);
}
template <class T>
[[nodiscard]] T reduce(cudaStream_t stream, const T* data, std::size_t n) {
  return reduce(stream, data, n, reduce_op::sum);
}

// Asynchronous: enqueues sum_i x[i] * y[i] into *result on `stream`.
template <class T>
void dot(cudaStream_t stream, const T* x, const T* y, std::size_t n, reduce_strategy strategy, T* result,
         const reduce_tuning& tuning = {}) {
  static_assert(is_value_type_v<T>, "ksync::cuda::dot supports int32, int64, float and double");
  detail::check_reduce_arguments("ksync::cuda::dot", x, y, n, strategy, tuning);
  detail::dot_values(stream, x, y, n, strategy, {.value = result}, tuning);
}

// Blocking: returns sum_i x[i] * y[i], waiting on `stream` only (as the blocking reduce).
template <class T>
[[nodiscard]] T dot(cudaStream_t stream, const T* x, const T* y, std::size_t n,
                    reduce_strategy strategy = reduce_strategy::automatic, const reduce_tuning& tuning = {}) {
  static_assert(is_value_type_v<T>, "ksync::cuda::dot supports int32, int64, float and double");
  detail::check_reduce_arguments("ksync::cuda::dot", x, y, n, strategy, tuning);
  return detail::blocking_result<T>(
      stream, detail::result_is_one_store(strategy),
      [&](detail::reduce_target<T> target) { detail::dot_values(stream, x, y, n, strategy, target, tuning); });
}

namespace detail {
template <class T, class Enqueue>
T blocking_result(cudaStream_t stream, bool direct, Enqueue&& enqueue) {
  if (direct) {
    return mailbox::receive_published<T>(stream, [&](T* slot, mailbox::device_epoch epoch) {
      enqueue(reduce_target<T>{.value = slot, .epoch = epoch});
    });
  }
  auto* device_result = static_cast<T*>(workspace_device_result(stream));
  enqueue(reduce_target<T>{.value = device_result});
  T value;
  mailbox::wait(stream, mailbox::post(stream, device_result, sizeof(T)), &value, sizeof(T));
  return value;
}
}  // namespace detail

}  // namespace ksync::cuda
