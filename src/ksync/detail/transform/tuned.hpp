// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// transform_strategy::tuned (what `automatic` runs) — host backends: one contiguous chunk per index; GPU
// backends: one 16-byte pack per index where in and out are packable (detail/packs.hpp), otherwise two
// elements in flight per index over as many indices as the device holds threads.
#pragma once

#include <ksync/compat.hpp>
#include <ksync/detail/index_policy.hpp>
#include <ksync/detail/packs.hpp>
#include <ksync/detail/reduction.hpp>  // split_for_host
#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

#include <algorithm>
#include <cstdint>

namespace ksync::detail {

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
// the device copy's bandwidth where a grid-stride loop over resident threads does not (docs/reductions.md).
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

namespace transform_strategies {

struct tuned : implements<transform_strategy::tuned> {
  template <class ExecutionSpace, class InView, class OutView, class F>
  static void run(const ExecutionSpace& exec, const InView& in, const OutView& out, const F& f, std::int64_t n) {
    using In = typename InView::non_const_value_type;
    using Out = typename OutView::non_const_value_type;
    if constexpr (runs_on_host<ExecutionSpace>) {
      const auto [lanes, chunk] = split_for_host(exec, n);
      Kokkos::parallel_for("ksync::transform::tuned", index_policy<ExecutionSpace>(exec, 0, n == 0 ? 0 : lanes),
                           TransformLanes<InView, OutView, F, true>{in, out, f, n, lanes, chunk});
    } else {
      if constexpr (sizeof(In) == sizeof(Out) && has_packs_v<In> && has_packs_v<Out>) {
        if (packable(in) && packable(out)) {
          constexpr int width = pack16<In>::width;
          const std::int64_t packs = n / width;
          const std::int64_t indices = packs + n % width;
          // 32-bit indices while they fit: fewer instructions per 16 bytes moved.
          if (indices <= std::int64_t{Kokkos::Experimental::finite_max_v<int>}) {
            Kokkos::parallel_for("ksync::transform::tuned", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, int(indices)),
                                 TransformPacks<InView, OutView, F, int>{in, out, f, int(packs)});
          } else {
            Kokkos::parallel_for("ksync::transform::tuned", index_policy<ExecutionSpace>(exec, 0, indices),
                                 TransformPacks<InView, OutView, F, std::int64_t>{in, out, f, packs});
          }
          return;
        }
      }
      const std::int64_t lanes =
          std::clamp<std::int64_t>((n + 1) / 2, 1, std::max<std::int64_t>(1, exec.concurrency()));
      Kokkos::parallel_for("ksync::transform::tuned", index_policy<ExecutionSpace>(exec, 0, n == 0 ? 0 : lanes),
                           TransformLanes<InView, OutView, F, false>{in, out, f, n, lanes, 0});
    }
  }
};

}  // namespace transform_strategies
}  // namespace ksync::detail
