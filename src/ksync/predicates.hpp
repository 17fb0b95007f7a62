// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::segment_predicates — per segment of `segment_size` flags, how many are nonzero and whether all /
// any are, with Kokkos team reductions (Sum, LAnd, LOr over a TeamThreadRange). The native twin is
// ksync::cuda::segment_predicates (the __syncthreads_count / _and / _or barriers), which implementation::
// native runs on Kokkos::Cuda through the bridge (segment sizes 1 to 1024). Asynchronous on `exec`.
#pragma once

#include <ksync/detail/bridge/predicates.hpp>
#include <ksync/detail/checks.hpp>
#include <ksync/detail/team_slice.hpp>
#include <ksync/types.hpp>

#include <cstdint>
#include <type_traits>

namespace ksync {

namespace detail {

template <class ExecutionSpace, class FlagView, class OutView>
struct SegmentPredicates {
  FlagView flags;
  OutView out;
  int segment_size;
  KOKKOS_FUNCTION void operator()(const team_member<ExecutionSpace>& team) const {
    const team_slice segment = slice_of(team, static_cast<std::int64_t>(flags.extent(0)), segment_size);
    const int len = segment.len;  // data bound
    const auto holds = [&](int i) { return flags(segment.begin + i) != 0 ? 1 : 0; };
    // Each nested reduction is a team-wide collective: participation = every member of the team; data =
    // the `len` flags of this segment (no member reads past it). Each publishes its result to all members.
    int count = 0;
    int all = 0;
    int any = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, len), [&](int i, int& sum) { sum += holds(i); }, Kokkos::Sum<int>(count));
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, len), [&](int i, int& every) { every = every && holds(i); },
        Kokkos::LAnd<int>(all));
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, len), [&](int i, int& some) { some = some || holds(i); }, Kokkos::LOr<int>(any));
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      out(team.league_rank()) = predicate_summary{.count = count, .all = all != 0 ? 1 : 0, .any = any != 0 ? 1 : 0};
    });
  }
};

}  // namespace detail

// `flags`: rank-1 View of int32; `out`: rank-1 View of predicate_summary with ceil(n / segment_size) entries.
template <class ExecutionSpace, class FlagView, class OutView>
void segment_predicates(const ExecutionSpace& exec, const FlagView& flags, int segment_size, const OutView& out,
                        implementation how = implementation::portable) {
  constexpr const char* where = "ksync::segment_predicates";
  static_assert(detail::takes_exec_and_two_views_v<ExecutionSpace, FlagView, OutView>,
                "ksync::segment_predicates: the first argument must be a Kokkos execution space instance, `flags` and "
                "`out` rank-1 Views that it can access");
  static_assert(std::is_same_v<typename FlagView::non_const_value_type, std::int32_t> &&
                    std::is_same_v<typename OutView::value_type, predicate_summary>,
                "ksync::segment_predicates: `flags` holds int32, `out` holds ksync::predicate_summary");
  const auto n = static_cast<std::int64_t>(flags.extent(0));
  const std::int64_t segments =
      detail::checked_segment_count(where, n, segment_size, static_cast<std::int64_t>(out.extent(0)));
  if (detail::runs_native<"ksync::segment_predicates", ExecutionSpace, std::int32_t>(where, how)) {
    detail::check_contiguous(where, "flags", flags);
    detail::check_contiguous(where, "out", out);
    detail::native<"ksync::segment_predicates", std::int32_t>(exec, flags, segment_size, out);
    return;
  }
  if (n == 0) return;
  Kokkos::parallel_for("ksync::segment_predicates",
                       Kokkos::TeamPolicy<ExecutionSpace>(exec, static_cast<int>(segments), Kokkos::AUTO),
                       detail::SegmentPredicates<ExecutionSpace, FlagView, OutView>{flags, out, segment_size});
}

}  // namespace ksync
