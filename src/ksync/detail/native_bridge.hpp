// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge from ksync:: (Kokkos) to ksync::cuda:: (hand-written CUDA): when `exec` is Kokkos::Cuda and
// this ksync was built with its native half, a native strategy or form runs ksync::cuda's kernel on exec's
// stream, on the Views' own memory. Everywhere else it is refused with std::invalid_argument before any
// work (check_native_reachable and each operation's own checks). An instance may live on another GPU than the
// calling thread's current one, as Kokkos allows: every entry below makes exec's device current for the call
// (CUDA launches from the current device, and Kokkos does the same before its own launches) and gives the
// caller's back after it.
//
// This file holds what every bridge shares: whether the bridge exists, the checks, where a result lands,
// the mailbox a blocking value comes home through, and the one entry every operation goes through:
//   detail::native<"ksync::<op>", T>(exec, arguments...)
// Each operation with a native twin has one bridge file in detail/bridge/ (reduce.hpp: reduce, dot,
// transform_reduce; transform, jacobi, cg, segment_reduce, predicates, reverse, pipeline), all of one shape:
// present only when this ksync has its native half, it says for which element types the twin exists
//   template <class T> struct twin_of<"ksync::<op>", Kokkos::Cuda, T> { exists = ...; elements = "..."; };
// and defines the twin itself, which calls ksync::cuda::<op> on exec.cuda_stream():
//   auto twin(operation<"ksync::<op>">, const Kokkos::Cuda& exec, const View&, int, ...);
// native() calls twin() wherever twin_of says it exists; an argument list that no twin() takes there is a
// compile error (a static_assert naming the bridge), never a run-time surprise. Operations with a user
// functor (transform_reduce, transform, pipeline) have a twin only in translation units compiled as CUDA —
// always the case for Kokkos code on the CUDA backend.
#pragma once

#include <ksync/backend.hpp>
#include <ksync/config.hpp>
#include <ksync/detail/arguments.hpp>
#include <ksync/types.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#if KSYNC_NATIVE_BRIDGE  // ksync/backend.hpp
#include <ksync/cuda/mailbox.hpp>
#include <ksync/cuda/runtime.hpp>
#include <ksync/cuda/value_types.hpp>
#endif

namespace ksync::detail {

// Whether this translation unit can instantiate ksync::cuda kernels with a user functor.
inline constexpr bool compiled_as_cuda =
#if defined(__CUDACC__)
    true;
#else
    false;
#endif

// An operation's name as a value ("ksync::reverse"): what names a twin in twin_of and native().
template <std::size_t N>
struct operation_name {
  char text[N];
  constexpr operation_name(const char (&name)[N]) {  // NOLINT(google-explicit-constructor): written as a literal
    for (std::size_t i = 0; i < N; ++i)
      text[i] = name[i];
  }
};
// ... and as a type: the first parameter of every twin(), by which native() finds it.
template <operation_name Name>
struct operation {
  static constexpr const char* name() { return Name.text; }
};

// Whether operation `Name` has a native twin on `ExecutionSpace` for elements of type T in this translation
// unit, and which element types it has one for (`elements`, for the message that refuses the others). Only
// the bridge files say yes.
template <operation_name Name, class ExecutionSpace, class T>
struct twin_of {
  static constexpr bool exists = false;
  static constexpr const char* elements = "none";
};

// What a bridge file's twin_of derives from: a twin for each element type ksync::cuda compiles, for float
// and double, or for any element type (the operations on a user functor or on fixed types).
#if KSYNC_NATIVE_BRIDGE
template <class T>
struct twin_for_value_types {
  static constexpr bool exists = ksync::cuda::is_value_type_v<T>;
  static constexpr const char* elements = "int32, int64, float and double";
};
#endif
template <class T>
struct twin_for_floating_point {
  static constexpr bool exists = std::is_same_v<T, float> || std::is_same_v<T, double>;
  static constexpr const char* elements = "float and double";
};
struct twin_for_any_element {
  static constexpr bool exists = true;
  static constexpr const char* elements = "all";
};

// Whether a twin() of `Name` takes these arguments.
template <operation_name Name, class ExecutionSpace, class... Arguments>
concept twin_takes = requires(const ExecutionSpace& exec, Arguments&&... arguments) {
  twin(operation<Name>{}, exec, std::forward<Arguments>(arguments)...);
};

// The one check before a native path, for any choice with rows (a strategy, a form, an implementation),
// called `what` in the messages: nothing when `choice` is not native; otherwise std::invalid_argument unless
// operation `Name` has a twin for this exec and element type T (twin_of). The message says what is missing:
// Kokkos::Cuda with ksync's native half, a translation unit compiled as CUDA where the operation takes a user
// functor (`needs_cuda_compiler`), or an element type the twin compiles.
template <operation_name Name, class ExecutionSpace, class T, class Choice>
void check_native_reachable(const char* where, const char* what, Choice choice, bool needs_cuda_compiler = false) {
  if (!is_native(choice)) return;
  check_argument(!needs_cuda_compiler || compiled_as_cuda || !has_native_bridge<ExecutionSpace>, where, what, " = ",
                 to_string(choice), " with a user functor needs this file compiled as CUDA");
  check_argument(has_native_bridge<ExecutionSpace>, where, what, " = ", to_string(choice),
                 " runs ksync::cuda's kernels: it needs exec to be Kokkos::Cuda and ksync built with its native half",
                 " (exec is ", ExecutionSpace::name(),
                 KSYNC_HAS_CUDA_NATIVE ? ")" : "; this ksync has no native half)");
  using twin = twin_of<Name, ExecutionSpace, T>;
  check_argument(twin::exists, where, what, " = ", to_string(choice), " supports ", twin::elements, " elements only");
}

// For the operations that take a ksync::implementation (reverse, segment_predicates, pipeline): checks `how`
// (a known value; reachable when native, as in check_native_reachable) and says whether it is native.
template <operation_name Name, class ExecutionSpace, class T>
bool runs_native(const char* where, implementation how, bool needs_cuda_compiler = false) {
  check_argument(is_known(how), where, "how = ", static_cast<int>(how), " is not a ksync::implementation");
  check_native_reachable<Name, ExecutionSpace, T>(where, "how", how, needs_cuda_compiler);
  return is_native(how);
}

// A Kokkos Tools region around a native kernel, which Kokkos does not see: pushed here, popped on every way
// out, an exception's included.
struct tools_region {
  explicit tools_region(const std::string& label) { Kokkos::Profiling::pushRegion(label); }
  tools_region(const tools_region&) = delete;
  tools_region& operator=(const tools_region&) = delete;
  tools_region(tools_region&&) = delete;
  tools_region& operator=(tools_region&&) = delete;
  ~tools_region() { Kokkos::Profiling::popRegion(); }
};

// Native kernels read raw memory: a strided View cannot be handed over.
template <class View>
void check_contiguous(const char* where, const char* name, const View& view) {
  check_argument(view.span_is_contiguous(), where, name, " has stride ", view.stride(0),
                 "; native strategies need contiguous Views");
}

// What native() returns where no twin exists: converts to any type, so that operations returning a value
// (ksync::cg) call native() the same way. Never produced: check_native_reachable refused such calls.
struct unreachable_result {
  template <class T>
  operator T() const {  // NOLINT(google-explicit-constructor): stands in for any result
    throw std::logic_error("ksync::detail::native: no native twin was reached");
  }
};

// Runs operation `Name`'s native twin for elements of type T: the one entry of every bridge. Where twin_of
// says the twin exists, an argument list its twin() does not take stops the build. Elsewhere (another
// execution space, an element type or a translation unit the twin does not have) the caller's
// check_native_reachable has already refused, so the throw marks a ksync bug, not a user error.
template <operation_name Name, class T, class ExecutionSpace, class... Arguments>
decltype(auto) native(const ExecutionSpace& exec, Arguments&&... arguments) {
  if constexpr (twin_of<Name, ExecutionSpace, T>::exists) {
    static_assert(twin_takes<Name, ExecutionSpace, Arguments...>,
                  "ksync: the portable operation calls its native twin with arguments that no twin() in its bridge "
                  "file (ksync/detail/bridge/) takes: make the two agree");
#if KSYNC_NATIVE_BRIDGE  // twins of Kokkos::Cuda exist only there (tests give others)
    if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
      const ksync::cuda::device_guard on(exec.cuda_device());
#if defined(__CUDACC__)
      // A user functor's lock-based atomics (Kokkos::complex<double>, 16-byte types) find their locks through
      // a device symbol that, without relocatable device code, each translation unit holds and Kokkos fills
      // just before its own launches: a native kernel needs the same, once per unit (desul caches it). That
      // first fill is a cudaMemcpyToSymbol, which a stream capture refuses, as it refuses Kokkos' first
      // launch in a unit: make one call before capturing, as the workspaces already ask (reduce.hpp).
      desul::ensure_cuda_lock_arrays_on_device();
#endif
      return twin(operation<Name>{}, exec, std::forward<Arguments>(arguments)...);
    }
#endif
    return twin(operation<Name>{}, exec, std::forward<Arguments>(arguments)...);
  } else {
    throw std::logic_error(std::string(operation<Name>::name()) +
                           ": the native bridge was entered where it does not exist");
    return unreachable_result{};
  }
}

// Whether blocking results on `ExecutionSpace` of type T come home through ksync::cuda's mailbox
// (ksync/cuda/mailbox.hpp): the host waits for the value, not for a fence of the instance.
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
T blocking_through_mailbox(const ExecutionSpace& exec, Fold&& fold) = delete;  // only on Kokkos::Cuda, below

#if KSYNC_NATIVE_BRIDGE
template <class T, class Fold>
  requires ksync::cuda::is_value_type_v<T>
T blocking_through_mailbox(const Kokkos::Cuda& exec, Fold&& fold) {
  const ksync::cuda::device_guard on(exec.cuda_device());
  return ksync::cuda::mailbox::receive<T>(exec.cuda_stream(), [&](T* mailbox_slot) {
    Kokkos::View<T, Kokkos::CudaSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> slot(mailbox_slot);
    fold(slot);
  });
}
#endif

// A post to exec's stream's mailbox and the wait for it (ksync/cuda/mailbox.hpp), for values the
// host looks at between batches of work (ksync::cg's convergence checks), in the bridge files' shape.
template <class ExecutionSpace>
std::uint32_t native_post(const ExecutionSpace& exec, const void* device_source, std::size_t bytes) = delete;
template <class ExecutionSpace>
void native_wait(const ExecutionSpace& exec, std::uint32_t ticket, void* destination, std::size_t bytes) = delete;

#if KSYNC_NATIVE_BRIDGE
inline std::uint32_t native_post(const Kokkos::Cuda& exec, const void* device_source, std::size_t bytes) {
  const ksync::cuda::device_guard on(exec.cuda_device());
  return ksync::cuda::mailbox::post(exec.cuda_stream(), device_source, bytes).epoch;
}
inline void native_wait(const Kokkos::Cuda& exec, std::uint32_t ticket, void* destination, std::size_t bytes) {
  const ksync::cuda::device_guard on(exec.cuda_device());
  ksync::cuda::mailbox::wait(exec.cuda_stream(), {ticket}, destination, bytes);
}
#endif

}  // namespace ksync::detail
