// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::transform — out(i) = f(in(i)) over rank-1 Views, with Kokkos alone or, on Kokkos::Cuda, through
// ksync::cuda::transform (cuda_native/include/ksync/cuda/device/transform.cuh).
//
//   transform(exec, in, out, f[, strategy])  asynchronous: enqueued on `exec`; nothing is fenced.
//
// `f` is callable on exec's device (KOKKOS_FUNCTION / KOKKOS_LAMBDA). `in` and `out` have one extent; they
// may be the same View (in place) but must not overlap otherwise. No barrier anywhere: each element is read
// and written by one thread.
#pragma once

#include <ksync/compat.hpp>
#include <ksync/detail/arguments.hpp>
#include <ksync/detail/bridge/transform.hpp>
#include <ksync/detail/checks.hpp>
#include <ksync/detail/transform/strategies.hpp>
#include <ksync/types.hpp>

#include <cstdint>
#include <type_traits>

namespace ksync {

template <class ExecutionSpace, class InView, class OutView, class F>
void transform(const ExecutionSpace& exec, const InView& in, const OutView& out, const F& f,
               transform_strategy strategy = transform_strategy::automatic) {
  static_assert(detail::takes_exec_and_two_views_v<ExecutionSpace, InView, OutView>,
                "ksync::transform: the first argument must be a Kokkos execution space instance, in and out rank-1 "
                "Kokkos::Views that it can access");
  static_assert(!std::is_const_v<typename OutView::value_type>, "ksync::transform: out must be writable");
  constexpr const char* where = "ksync::transform";
  using In = typename InView::non_const_value_type;
  using Out = typename OutView::non_const_value_type;
  const auto n = static_cast<std::int64_t>(in.extent(0));
  detail::check_argument(static_cast<std::int64_t>(out.extent(0)) == n, where, "out.extent(0) = ", out.extent(0),
                         " but in.extent(0) = ", n);
  const auto* in_begin = reinterpret_cast<const char*>(in.data());
  const auto* out_begin = reinterpret_cast<const char*>(out.data());
  const bool disjoint =
      in_begin + in.span() * sizeof(In) <= out_begin || out_begin + out.span() * sizeof(Out) <= in_begin;
  const bool same = in_begin == out_begin && sizeof(In) == sizeof(Out) && in.stride(0) == out.stride(0);
  detail::check_argument(n == 0 || disjoint || same, where, "in and out overlap without being the same View (n = ", n,
                         ")");
  detail::check_argument(is_known(strategy), where, "strategy = ", static_cast<int>(strategy),
                         " is not a transform_strategy");
  detail::check_native_reachable<"ksync::transform", ExecutionSpace, Out>(where, "strategy", strategy,
                                                                          /*needs_cuda_compiler=*/true);
  if (is_native(strategy)) {
    detail::check_contiguous(where, "in", in);
    detail::check_contiguous(where, "out", out);
    detail::native<"ksync::transform", Out>(exec, in, out, f);
    return;
  }
  detail::portable_transform_strategies::dispatch(where, detail::portable_transform_choice(strategy),
                                                  [&]<class Strategy>() { Strategy::run(exec, in, out, f, n); });
}

}  // namespace ksync
