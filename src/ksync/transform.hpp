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
#include <ksync/detail/checks.hpp>
#include <ksync/detail/fold.hpp>
#include <ksync/detail/native_bridge.hpp>
#include <ksync/detail/packs.hpp>
#include <ksync/types.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace ksync {

namespace detail {

template <class InView, class OutView, class F>
struct TransformEach {
  InView in;
  OutView out;
  F f;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { out(i) = f(in(i)); }
};

// Host backends: one contiguous chunk per index. GPU backends, data not packable: i and i + lanes per step
// (two loads in flight).
template <class InView, class OutView, class F, bool Contiguous>
struct TransformLanes {
  InView in;
  OutView out;
  F f;
  std::int64_t n;
  std::int64_t lanes;
  std::int64_t chunk;
  KOKKOS_FUNCTION void operator()(std::int64_t lane) const {
    if constexpr (Contiguous) {
      const std::int64_t begin = lane * chunk;
      const std::int64_t end = begin + chunk < n ? begin + chunk : n;
      for (std::int64_t i = begin; i < end; ++i)
        out(i) = f(in(i));
    } else {
      std::int64_t i = lane;
      for (; i + lanes < n; i += 2 * lanes) {
        const auto first = in(i);
        const auto second = in(i + lanes);
        out(i) = f(first);
        out(i + lanes) = f(second);
      }
      if (i < n) out(i) = f(in(i));
    }
  }
};

// GPU backends, packable in and out of one element size: index p < packs maps 16-byte pack p, index
// packs + j the tail element packs * width + j. One pack per thread, as many threads as packs: this reaches
// the device copy's bandwidth where a grid-stride loop over resident threads did not (docs/reductions.md).
template <class InView, class OutView, class F, class Index>
struct TransformPacks {
  using In = typename InView::non_const_value_type;
  using Out = typename OutView::non_const_value_type;
  static constexpr int width = pack16<In>::width;
  InView in;
  OutView out;
  F f;
  Index packs;
  KOKKOS_FUNCTION void operator()(Index p) const {
    if (p < packs) {
      const pack16<In> source = load_pack(in.data(), p);
      pack16<Out> target;
      for (int k = 0; k < width; ++k)
        target.value[k] = f(source.value[k]);
      store_pack(out.data(), p, target);
    } else {
      const std::int64_t i = static_cast<std::int64_t>(packs) * width + (p - packs);
      out(i) = f(in(i));
    }
  }
};

}  // namespace detail

template <class ExecutionSpace, class InView, class OutView, class F>
void transform(const ExecutionSpace& exec, const InView& in, const OutView& out, const F& f,
               transform_strategy strategy = transform_strategy::automatic) {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "ksync::transform: the first argument must be a Kokkos execution space instance");
  static_assert(
      detail::is_usable_view_v<ExecutionSpace, InView, 1> && detail::is_usable_view_v<ExecutionSpace, OutView, 1>,
      "ksync::transform: in and out must be rank-1 Kokkos::Views that `exec` can access");
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
  if (strategy == transform_strategy::native) {
    detail::check_argument(detail::has_native_bridge<ExecutionSpace> && detail::compiled_as_cuda, where,
                           "strategy = native runs ksync::cuda::transform: it needs exec to be Kokkos::Cuda, ksync ",
                           "built with its native half and this file compiled as CUDA (exec is ",
                           ExecutionSpace::name(), ")");
    detail::check_contiguous(where, "in", in);
    detail::check_contiguous(where, "out", out);
#if KSYNC_NATIVE_BRIDGE && defined(__CUDACC__)
    if constexpr (detail::has_native_bridge<ExecutionSpace>) {
      ksync::cuda::transform(exec.cuda_stream(), in.data(), in.extent(0), out.data(), f);
    }
#endif
    return;
  }
  if (strategy == transform_strategy::kokkos) {
    Kokkos::parallel_for("ksync::transform::kokkos", detail::IndexPolicy<ExecutionSpace>(exec, 0, n),
                         detail::TransformEach<InView, OutView, F>{in, out, f});
    return;
  }
  if constexpr (detail::runs_on_host<ExecutionSpace>) {
    const auto [lanes, chunk] = detail::split_for_host(exec, n);
    Kokkos::parallel_for("ksync::transform::tuned", detail::IndexPolicy<ExecutionSpace>(exec, 0, n == 0 ? 0 : lanes),
                         detail::TransformLanes<InView, OutView, F, true>{in, out, f, n, lanes, chunk});
  } else {
    if constexpr (sizeof(In) == sizeof(Out) && detail::has_packs_v<In> && detail::has_packs_v<Out>) {
      if (detail::packable(in) && detail::packable(out)) {
        constexpr int width = detail::pack16<In>::width;
        const std::int64_t packs = n / width;
        const std::int64_t indices = packs + n % width;
        // 32-bit indices while they fit: fewer instructions per 16 bytes moved.
        if (indices <= std::int64_t{Kokkos::Experimental::finite_max_v<int>}) {
          Kokkos::parallel_for("ksync::transform::tuned", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, int(indices)),
                               detail::TransformPacks<InView, OutView, F, int>{in, out, f, int(packs)});
        } else {
          Kokkos::parallel_for("ksync::transform::tuned", detail::IndexPolicy<ExecutionSpace>(exec, 0, indices),
                               detail::TransformPacks<InView, OutView, F, std::int64_t>{in, out, f, packs});
        }
        return;
      }
    }
    const std::int64_t lanes = std::clamp<std::int64_t>((n + 1) / 2, 1, std::max<std::int64_t>(1, exec.concurrency()));
    Kokkos::parallel_for("ksync::transform::tuned", detail::IndexPolicy<ExecutionSpace>(exec, 0, n == 0 ? 0 : lanes),
                         detail::TransformLanes<InView, OutView, F, false>{in, out, f, n, lanes, 0});
  }
}

}  // namespace ksync
