// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge from ksync:: (Kokkos) to ksync::cuda:: (hand-written CUDA): when `exec` is Kokkos::Cuda and
// this ksync was built with its native half, a native strategy or form runs ksync::cuda's kernel on exec's
// stream, on the Views' own memory. Everywhere else it is refused with std::invalid_argument before any
// work (check_native_reachable and each operation's own checks).
//
// This file holds what every bridge shares: whether the bridge exists, the checks, where a result lands,
// and the mailbox a blocking value comes home through. Each operation with a native twin has one bridge
// file in detail/bridge/ (reduce.hpp: reduce, dot, transform_reduce; transform.hpp; jacobi.hpp; cg.hpp),
// all of one shape, selected by overloading on the execution space:
//   template <class ExecutionSpace, class... Arguments>
//   void native_<op>(const ExecutionSpace&, const Arguments&...);   // never reached: unreachable_bridge
//   #if KSYNC_NATIVE_BRIDGE
//   template <class View, ...>                                     // the Views, as the caller holds them
//   void native_<op>(const Kokkos::Cuda& exec, const View&, ...);  // ksync::cuda::<op> on exec.cuda_stream()
//   #endif
// The Kokkos::Cuda overload takes every argument as the caller passes it (by const reference; a result by
// reference), so that it is the more specialized of two equal matches: an argument that had to convert
// would rank the generic overload above it.
// Operations with a user functor (transform_reduce, transform) define the Kokkos::Cuda overload only in
// translation units compiled as CUDA — always the case for Kokkos code on the CUDA backend.
#pragma once

#include <ksync/config.hpp>
#include <ksync/detail/arguments.hpp>
#include <ksync/types.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#if KSYNC_HAS_CUDA_NATIVE && defined(KOKKOS_ENABLE_CUDA)
#define KSYNC_NATIVE_BRIDGE 1
#include <ksync/cuda/detail/mailbox.hpp>
#include <ksync/cuda/device/reduce.hpp>  // blocking_result, result_is_one_store
#include <ksync/cuda/value_types.hpp>
#else
#define KSYNC_NATIVE_BRIDGE 0
#endif

namespace ksync::detail {

// Whether work on `ExecutionSpace` can be handed to ksync::cuda.
template <class ExecutionSpace>
inline constexpr bool has_native_bridge =
#if KSYNC_NATIVE_BRIDGE
    std::is_same_v<ExecutionSpace, Kokkos::Cuda>;
#else
    false;
#endif

// Whether this translation unit can instantiate ksync::cuda kernels with a user functor.
inline constexpr bool compiled_as_cuda =
#if defined(__CUDACC__)
    true;
#else
    false;
#endif

// Throws std::invalid_argument when a native strategy cannot run on `ExecutionSpace` with element type T
// (and, for operations taking a user functor, `needs_cuda_compiler`, from this translation unit).
template <class ExecutionSpace, class T>
void check_native_reachable(const char* where, reduce_strategy strategy, bool needs_cuda_compiler = false) {
  if (!is_native(strategy)) return;
  check_argument(!needs_cuda_compiler || compiled_as_cuda || !has_native_bridge<ExecutionSpace>, where,
                 "strategy = ", to_string(strategy), " with a user functor needs this file compiled as CUDA");
  check_argument(has_native_bridge<ExecutionSpace>, where, "strategy = ", to_string(strategy),
                 " runs ksync::cuda's kernels: it needs exec to be Kokkos::Cuda and ksync built with its native half",
                 " (exec is ", ExecutionSpace::name(),
                 KSYNC_HAS_CUDA_NATIVE ? ")" : "; this ksync has no native half)");
#if KSYNC_NATIVE_BRIDGE
  check_argument(ksync::cuda::is_value_type_v<T>, where, "strategy = ", to_string(strategy),
                 " supports int32, int64, float and double elements only");
#endif
}

// Native kernels read raw memory: a strided View cannot be handed over.
template <class View>
void check_contiguous(const char* where, const char* name, const View& view) {
  check_argument(view.span_is_contiguous(), where, name, " has stride ", view.stride(0),
                 "; native strategies need contiguous Views");
}

// The calls themselves. Each is reached only after check_native_reachable passed, so the fall-through
// throw marks a ksync bug, not a user error.
[[noreturn]] inline void unreachable_bridge(const char* where) {
  throw std::logic_error(std::string(where) + ": the native bridge was entered where it does not exist");
}

#if KSYNC_NATIVE_BRIDGE
// Runs `enqueue(target)` on `stream` with `target` where the result goes: the rank-0 View's own memory
// (asynchronous), or, for a host scalar, the stream's mailbox slot (a device slot for strategies that combine
// with atomics), brought home as ksync::cuda's blocking calls do (ksync/cuda/detail/mailbox.hpp).
template <class T, class Result, class Enqueue>
void into_result(cudaStream_t stream, reduce_strategy strategy, Result& result, Enqueue&& enqueue) {
  if constexpr (Kokkos::is_view_v<Result>) {
    enqueue(result.data());
  } else {
    result =
        ksync::cuda::detail::blocking_result<T>(stream, ksync::cuda::detail::result_is_one_store(strategy), enqueue);
  }
}
#endif

// Whether blocking results on `ExecutionSpace` of type T come home through ksync::cuda's mailbox
// (ksync/cuda/detail/mailbox.hpp): the host waits for the value, not for a fence of the instance.
template <class ExecutionSpace, class T>
inline constexpr bool has_native_mailbox =
#if KSYNC_NATIVE_BRIDGE
    has_native_bridge<ExecutionSpace> && ksync::cuda::is_value_type_v<T>;
#else
    false;
#endif

// A blocking result through the mailbox: `fold(slot)` enqueues the value into `slot`, a rank-0 View over
// the mailbox slot itself (mapped host memory the GPU writes: Kokkos' reductions store their result with
// plain stores, or copy it there); the value comes back as soon as the GPU has written it.
template <class T, class ExecutionSpace, class Fold>
T blocking_through_mailbox(const ExecutionSpace& /*exec*/, Fold&& /*fold*/) {
  unreachable_bridge("ksync::blocking_through_mailbox");
}

#if KSYNC_NATIVE_BRIDGE
template <class T, class Fold>
  requires ksync::cuda::is_value_type_v<T>
T blocking_through_mailbox(const Kokkos::Cuda& exec, Fold&& fold) {
  return ksync::cuda::detail::blocking_result<T>(exec.cuda_stream(), /*direct=*/true, [&](T* mailbox_slot) {
    Kokkos::View<T, Kokkos::CudaSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> slot(mailbox_slot);
    fold(slot);
  });
}
#endif

// A post to exec's stream's mailbox and the wait for it (ksync/cuda/detail/mailbox.hpp), for values the
// host looks at between batches of work (ksync::cg's convergence checks), in the bridge files' shape.
template <class ExecutionSpace>
std::uint32_t native_post(const ExecutionSpace& /*exec*/, const void* /*device_source*/, std::size_t /*bytes*/) {
  unreachable_bridge("ksync::native_post");
}
template <class ExecutionSpace>
void native_wait(const ExecutionSpace& /*exec*/, std::uint32_t /*ticket*/, void* /*destination*/,
                 std::size_t /*bytes*/) {
  unreachable_bridge("ksync::native_wait");
}

#if KSYNC_NATIVE_BRIDGE
inline std::uint32_t native_post(const Kokkos::Cuda& exec, const void* device_source, std::size_t bytes) {
  return ksync::cuda::detail::post(exec.cuda_stream(), device_source, bytes).epoch;
}
inline void native_wait(const Kokkos::Cuda& exec, std::uint32_t ticket, void* destination, std::size_t bytes) {
  ksync::cuda::detail::wait(exec.cuda_stream(), {ticket}, destination, bytes);
}
#endif

}  // namespace ksync::detail
