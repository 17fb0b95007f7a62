// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::reduce, ksync::dot, ksync::transform_reduce — device-wide reductions of rank-1 Views, with Kokkos
// alone or, on Kokkos::Cuda, through ksync's hand-written kernels. The native twins live in
// cuda_native/include/ksync/cuda/device/reduce.hpp (.cuh for transform_reduce).
//
//   reduce(exec, data, op, strategy, result)   asynchronous: op over data lands in the rank-0 View `result`
//                                              once `exec` reaches that point of its queue; nothing is fenced.
//   auto r = reduce(exec, data, op[, strategy]) blocking: returns the value once `exec` computed it; on
//                                              Kokkos::Cuda (with the native half) the value comes home through
//                                              mapped pinned memory without a fence, elsewhere Kokkos fences `exec`.
//   reduce(exec, data, result) / reduce(exec, data)                     the sum, automatic strategy
//   dot(exec, x, y, strategy, result) / dot(exec, x, y[, strategy])     sum of x(i) * y(i)
//   transform_reduce(exec, data, op, f, strategy, result) / (exec, data, op, f[, strategy])  op over f(data(i))
//
// Strategies (ksync::reduce_strategy, types.hpp): kokkos, team and tuned are Kokkos code and run on every
// backend; two_pass, last_block, grid_sync, cluster and atomics run ksync::cuda's kernels on
// exec.cuda_stream() and need Kokkos::Cuda, a ksync built with its native half, int32, int64, float or
// double elements and contiguous Views; elsewhere they throw std::invalid_argument. automatic runs
// last_block where it can run (and, for transform_reduce, the file is compiled as CUDA), tuned elsewhere
// (detail::resolve_automatic). Kokkos Tools see a native kernel as a region under the kernel's label. The
// native kernels keep a workspace per stream, made (device and pinned allocations) by the first call on it:
// to capture exec's stream into a CUDA graph, make one call before the capture, or pass tuned.
//
// Floating-point sums are combined in an order that depends on the backend and the launch shape, so they
// differ from a sequential sum by rounding, never by more than gamma(n-1) * sum |x_i| (gamma(k) = k u /
// (1 - k u), u the unit roundoff of the accumulator). Float sums on host backends are kept in double (see
// detail::accumulator_t) after runs of 128 float additions, so their bound is
// (gamma_float(128) + gamma_double(n)) * sum |x_i|. On GPUs each thread folds n / P values before a tree
// combines P partials, so the bound tightens to gamma(n/P + log2 P + 3) (see ksync::cuda::reduce).
#pragma once

#include <ksync/compat.hpp>
#include <ksync/detail/arguments.hpp>
#include <ksync/detail/bridge/reduce.hpp>
#include <ksync/detail/checks.hpp>
#include <ksync/detail/packs.hpp>
#include <ksync/detail/reduce/strategies.hpp>
#include <ksync/detail/reduction.hpp>
#include <ksync/types.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace ksync {

namespace detail {

template <class ExecutionSpace, class DataView>
constexpr void check_reduce_input() {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "ksync::reduce: the first argument must be a Kokkos execution space instance");
  static_assert(is_usable_view_v<ExecutionSpace, DataView, 1>,
                "ksync::reduce: the data must be a rank-1 Kokkos::View that `exec` can access");
  static_assert(std::is_arithmetic_v<typename DataView::non_const_value_type>,
                "ksync::reduce: the data must hold an arithmetic type");
}

template <class ExecutionSpace, class T, class ResultView>
constexpr void check_reduce_result() {
  static_assert(Kokkos::is_view_v<ResultView> && compat::view_rank<ResultView> == 0,
                "ksync::reduce: `result` must be a rank-0 Kokkos::View");
  static_assert(std::is_same_v<typename ResultView::value_type, T>,
                "ksync::reduce: `result` must hold the non-const value type of the data");
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, typename ResultView::memory_space>::accessible,
                "ksync::reduce: `result` lives in a memory space that `exec` cannot access");
}

inline void check_portable_strategy(const char* where, reduce_strategy strategy) {
  check_argument(is_known(strategy), where, "strategy = ", static_cast<int>(strategy), " is not a reduce_strategy");
}

// Stores a wider accumulator into the caller's result View, in stream order.
template <class WideView, class ResultView>
struct NarrowResult {
  WideView wide;
  ResultView result;
  KOKKOS_FUNCTION void operator()(int /*index*/) const {
    result() = static_cast<typename ResultView::value_type>(wide());
  }
};

// Op over term(0 .. n-1) by a portable strategy into `target`: a rank-0 View (asynchronous) or a host
// scalar (blocking) of T; accumulates in accumulator_t and narrows at the end.
template <class T, reduce_op Op, class ExecutionSpace, class Term, class Target>
void fold_portable_as(const char* label, const ExecutionSpace& exec, std::int64_t n, const Term& term,
                      reduce_strategy strategy, Target& target) {
  if constexpr (!Kokkos::is_view_v<Target> && has_native_mailbox<ExecutionSpace, T>) {
    // A host scalar on Kokkos::Cuda: fold into a device slot and let the value itself come home.
    target = blocking_through_mailbox<T>(
        exec, [&](auto& slot) { fold_portable_as<T, Op>(label, exec, n, term, strategy, slot); });
    return;
  }
  using Acc = accumulator_t<ExecutionSpace, Op, T>;
  if (n == 0) {
    // Kokkos' reducers would write Kokkos' identity, which is not ksync's in every version (compat.hpp).
    if constexpr (Kokkos::is_view_v<Target>) {
      Kokkos::deep_copy(exec, target, combine<Op>::template identity<T>());
    } else {
      target = combine<Op>::template identity<T>();
    }
  } else if constexpr (std::is_same_v<Acc, T>) {
    fold<Op, Acc>(label, exec, n, term, strategy, target);
  } else if constexpr (Kokkos::is_view_v<Target>) {
    const Kokkos::View<Acc, typename Target::memory_space> wide(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::reduce::accumulator"));
    fold<Op, Acc>(label, exec, n, term, strategy, wide);
    Kokkos::parallel_for("ksync::reduce::narrow", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, 1),
                         NarrowResult<decltype(wide), Target>{wide, target});
  } else {
    Acc wide{};
    fold<Op, Acc>(label, exec, n, term, strategy, wide);
    target = static_cast<T>(wide);
  }
}

// The same with the operator chosen at run time.
template <class T, class ExecutionSpace, class Term, class Target>
void fold_portable(const char* label, const ExecutionSpace& exec, std::int64_t n, const Term& term, reduce_op op,
                   reduce_strategy strategy, Target& target) {
  with_operator(op, [&](auto op_functor) {
    fold_portable_as<T, decltype(op_functor)::id>(label, exec, n, term, strategy, target);
  });
}

// The terms a reduction folds: term(i) one at a time; term.pack(p) the 16-byte pack p of them, used on GPU
// backends when term.packable() (detail/packs.hpp).
template <class DataView>
struct ElementTerm {
  using value_type = typename DataView::non_const_value_type;
  DataView data;
  KOKKOS_FUNCTION value_type operator()(std::int64_t i) const { return data(i); }
  KOKKOS_FUNCTION pack16<value_type> pack(std::int64_t p) const { return load_pack(data.data(), p); }
  bool packable() const { return detail::packable(data); }
};

template <class XView, class YView>
struct ProductTerm {
  using value_type = typename XView::non_const_value_type;
  XView x;
  YView y;
  KOKKOS_FUNCTION value_type operator()(std::int64_t i) const { return x(i) * y(i); }
  KOKKOS_FUNCTION pack16<value_type> pack(std::int64_t p) const {
    auto products = load_pack(x.data(), p);
    const auto ys = load_pack(y.data(), p);
    for (int k = 0; k < pack16<value_type>::width; ++k)
      products.value[k] *= ys.value[k];
    return products;
  }
  bool packable() const { return detail::packable(x) && detail::packable(y); }
};

template <class DataView, class Transform>
struct TransformTerm {
  using value_type = typename DataView::non_const_value_type;
  DataView data;
  Transform transform;
  KOKKOS_FUNCTION value_type operator()(std::int64_t i) const { return transform(data(i)); }
  KOKKOS_FUNCTION pack16<value_type> pack(std::int64_t p) const {
    auto values = load_pack(data.data(), p);
    for (auto& value : values.value)
      value = transform(value);
    return values;
  }
  bool packable() const { return detail::packable(data); }
};

// The strategy `automatic` runs. On Kokkos::Cuda with ksync's native half, for the element types its kernels
// compile and contiguous data (for transform_reduce, in a translation unit compiled as CUDA): the native
// last_block, which summed floats 1.29-1.41x as fast as tuned up to 2^22 on an H200 and as fast from
// 2^28 (docs/reductions.md) and whose kernel publishes a blocking result itself (docs/reductions.md). Elsewhere
// tuned (portable_choice).
template <operation_name Name, class ExecutionSpace, class T>
constexpr reduce_strategy resolve_automatic(reduce_strategy strategy, bool contiguous) {
  if constexpr (twin_of<Name, ExecutionSpace, T>::exists) {
    if (strategy == reduce_strategy::automatic && contiguous) return reduce_strategy::last_block;
  }
  return strategy;
}

template <class ExecutionSpace, class DataView, class Target>
void reduce_into(const ExecutionSpace& exec, const DataView& data, reduce_op op, reduce_strategy strategy,
                 Target& target) {
  using T = typename DataView::non_const_value_type;
  constexpr const char* where = "ksync::reduce";
  check_portable_strategy(where, strategy);
  strategy = resolve_automatic<"ksync::reduce", ExecutionSpace, T>(strategy, data.span_is_contiguous());
  check_native_reachable<"ksync::reduce", ExecutionSpace, T>(where, "strategy", strategy);
  const char* label = op == reduce_op::sum   ? "ksync::reduce::sum"
                      : op == reduce_op::min ? "ksync::reduce::min"
                                             : "ksync::reduce::max";
  if (is_native(strategy)) {
    check_contiguous(where, "data", data);
    const tools_region region(label);
    native<"ksync::reduce", T>(exec, data, op, strategy, target);
  } else {
    fold_portable<T>(label, exec, static_cast<std::int64_t>(data.extent(0)), ElementTerm<DataView>{data}, op, strategy,
                     target);
  }
}

template <class ExecutionSpace, class XView, class YView, class Target>
void dot_into(const ExecutionSpace& exec, const XView& x, const YView& y, reduce_strategy strategy, Target& target) {
  using T = typename XView::non_const_value_type;
  constexpr const char* where = "ksync::dot";
  static_assert(std::is_same_v<T, typename YView::non_const_value_type>, "ksync::dot: x and y must hold one type");
  check_argument(x.extent(0) == y.extent(0), where, "y.extent(0) = ", y.extent(0), " but x.extent(0) = ", x.extent(0));
  check_portable_strategy(where, strategy);
  strategy =
      resolve_automatic<"ksync::dot", ExecutionSpace, T>(strategy, x.span_is_contiguous() && y.span_is_contiguous());
  check_native_reachable<"ksync::dot", ExecutionSpace, T>(where, "strategy", strategy);
  if (is_native(strategy)) {
    check_contiguous(where, "x", x);
    check_contiguous(where, "y", y);
    const tools_region region(where);
    native<"ksync::dot", T>(exec, x, y, strategy, target);
  } else {
    fold_portable<T>(where, exec, static_cast<std::int64_t>(x.extent(0)), ProductTerm<XView, YView>{x, y},
                     reduce_op::sum, strategy, target);
  }
}

template <class ExecutionSpace, class DataView, class Transform, class Target>
void transform_reduce_into(const ExecutionSpace& exec, const DataView& data, reduce_op op, const Transform& f,
                           reduce_strategy strategy, Target& target) {
  using T = typename DataView::non_const_value_type;
  constexpr const char* where = "ksync::transform_reduce";
  check_portable_strategy(where, strategy);
  strategy = resolve_automatic<"ksync::transform_reduce", ExecutionSpace, T>(strategy, data.span_is_contiguous());
  check_native_reachable<"ksync::transform_reduce", ExecutionSpace, T>(where, "strategy", strategy,
                                                                       /*needs_cuda_compiler=*/true);
  if (is_native(strategy)) {
    check_contiguous(where, "data", data);
    const tools_region region(where);
    native<"ksync::transform_reduce", T>(exec, data, op, f, strategy, target);
  } else {
    fold_portable<T>(where, exec, static_cast<std::int64_t>(data.extent(0)),
                     TransformTerm<DataView, Transform>{data, f}, op, strategy, target);
  }
}

}  // namespace detail

// Asynchronous: enqueues op over `data` into the rank-0 View `result` on `exec`.
template <class ExecutionSpace, class DataView, class ResultView>
void reduce(const ExecutionSpace& exec, const DataView& data, reduce_op op, reduce_strategy strategy,
            const ResultView& result) {
  detail::check_reduce_input<ExecutionSpace, DataView>();
  detail::check_reduce_result<ExecutionSpace, typename DataView::non_const_value_type, ResultView>();
  ResultView target = result;
  detail::reduce_into(exec, data, op, strategy, target);
}

// Blocking: returns op over `data` once `exec` computed it (see the top of this file), waiting on nothing else.
template <class ExecutionSpace, class DataView>
[[nodiscard]] typename DataView::non_const_value_type reduce(const ExecutionSpace& exec, const DataView& data,
                                                             reduce_op op,
                                                             reduce_strategy strategy = reduce_strategy::automatic) {
  detail::check_reduce_input<ExecutionSpace, DataView>();
  typename DataView::non_const_value_type value{};
  detail::reduce_into(exec, data, op, strategy, value);
  return value;
}

// The sum, by the automatic strategy: asynchronous into a rank-0 View, and blocking.
template <class ExecutionSpace, class DataView, class ResultView>
  requires Kokkos::is_view_v<ResultView>
void reduce(const ExecutionSpace& exec, const DataView& data, const ResultView& result) {
  reduce(exec, data, reduce_op::sum, reduce_strategy::automatic, result);
}
template <class ExecutionSpace, class DataView>
[[nodiscard]] typename DataView::non_const_value_type reduce(const ExecutionSpace& exec, const DataView& data) {
  return reduce(exec, data, reduce_op::sum);
}

// Asynchronous: enqueues sum_i x(i) * y(i) into the rank-0 View `result` on `exec`.
template <class ExecutionSpace, class XView, class YView, class ResultView>
void dot(const ExecutionSpace& exec, const XView& x, const YView& y, reduce_strategy strategy,
         const ResultView& result) {
  detail::check_reduce_input<ExecutionSpace, XView>();
  detail::check_reduce_input<ExecutionSpace, YView>();
  detail::check_reduce_result<ExecutionSpace, typename XView::non_const_value_type, ResultView>();
  ResultView target = result;
  detail::dot_into(exec, x, y, strategy, target);
}

// Blocking: returns sum_i x(i) * y(i), waiting on `exec` only.
template <class ExecutionSpace, class XView, class YView>
[[nodiscard]] typename XView::non_const_value_type dot(const ExecutionSpace& exec, const XView& x, const YView& y,
                                                       reduce_strategy strategy = reduce_strategy::automatic) {
  detail::check_reduce_input<ExecutionSpace, XView>();
  detail::check_reduce_input<ExecutionSpace, YView>();
  typename XView::non_const_value_type value{};
  detail::dot_into(exec, x, y, strategy, value);
  return value;
}

// Asynchronous: enqueues op over f(data(i)) into the rank-0 View `result` on `exec`. `f` maps the element
// type to itself and is callable on exec's device (KOKKOS_FUNCTION / KOKKOS_LAMBDA).
template <class ExecutionSpace, class DataView, class Transform, class ResultView>
void transform_reduce(const ExecutionSpace& exec, const DataView& data, reduce_op op, const Transform& f,
                      reduce_strategy strategy, const ResultView& result) {
  detail::check_reduce_input<ExecutionSpace, DataView>();
  detail::check_reduce_result<ExecutionSpace, typename DataView::non_const_value_type, ResultView>();
  ResultView target = result;
  detail::transform_reduce_into(exec, data, op, f, strategy, target);
}

// Blocking: returns op over f(data(i)), waiting on `exec` only.
template <class ExecutionSpace, class DataView, class Transform>
[[nodiscard]] typename DataView::non_const_value_type transform_reduce(
    const ExecutionSpace& exec, const DataView& data, reduce_op op, const Transform& f,
    reduce_strategy strategy = reduce_strategy::automatic) {
  detail::check_reduce_input<ExecutionSpace, DataView>();
  typename DataView::non_const_value_type value{};
  detail::transform_reduce_into(exec, data, op, f, strategy, value);
  return value;
}

}  // namespace ksync
