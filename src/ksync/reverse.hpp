// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Reversal through team scratch memory, written with Kokkos alone. Native twins: ksync::cuda::
// reverse_in_block (cuda_native/.../device/reverse_in_block.hpp) and ksync::cuda::reverse (.../device/reverse.hpp).
//
//   reverse_in_block(exec, in, out)  the participation-bound worked example (docs/glossary.md): one team
//                                    stages n <= 128 values in 128 scratch slots (slots past n get zero), one
//                                    team_barrier, then out[t] = s[n-1-t]
//   reverse(exec, in, out, tile)     any n, out-of-place: team b reverses one tile of `tile` elements
//   reverse(exec, data, tile)        any n, in place: team b swaps tile b of the front half with its mirror
// All are asynchronous on `exec`. With implementation::native each runs its native twin on Kokkos::Cuda through
// the bridge (the tile is the block size there, 1 to 1024). A Kokkos team has as many members as the backend gives it
// (Kokkos::AUTO: a CUDA block on the GPU, a few threads on OpenMP), so each member covers several slots with a
// TeamThreadRange; the team_barrier's participation bound is the whole team either way.
#pragma once

#include <ksync/detail/bridge/reverse.hpp>
#include <ksync/detail/checks.hpp>
#include <ksync/detail/team_slice.hpp>

#include <cstdint>
#include <type_traits>

namespace ksync {

inline constexpr int reverse_in_block_capacity = 128;

namespace detail {

template <class ExecutionSpace, class InView, class OutView>
constexpr void check_reverse_views() {
  static_assert(takes_exec_and_two_views_v<ExecutionSpace, InView, OutView>,
                "ksync::reverse: the first argument must be a Kokkos execution space instance, `in` and `out` rank-1 "
                "Views that it can access");
  static_assert(std::is_same_v<typename InView::non_const_value_type, typename OutView::value_type>,
                "ksync::reverse: `out` must be a non-const View of `in`'s value type");
}

template <class ExecutionSpace, class T>
using scratch_view =
    Kokkos::View<T*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class ExecutionSpace, class InView, class OutView>
struct ReverseInBlock {
  using value_type = typename OutView::value_type;
  InView in;
  OutView out;
  int n;
  KOKKOS_FUNCTION void operator()(const team_member<ExecutionSpace>& team) const {
    const scratch_view<ExecutionSpace, value_type> slots(team.team_scratch(0), reverse_in_block_capacity);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, reverse_in_block_capacity),
                         [&](int t) { slots(t) = t < n ? in(t) : value_type{}; });  // data bound: t < n
    // Participation: every member of the team. Data: slots[0, n) hold the input. Publishes the staged
    // values to the members that write their mirror images.
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](int t) { out(t) = slots(n - 1 - t); });
  }
};

template <class ExecutionSpace, class InView, class OutView>
struct ReverseTiles {
  using value_type = typename OutView::value_type;
  InView in;
  OutView out;
  std::int64_t n;
  int tile;
  KOKKOS_FUNCTION void operator()(const team_member<ExecutionSpace>& team) const {
    const scratch_view<ExecutionSpace, value_type> staged(team.team_scratch(0), tile);
    const team_slice tile_out = slice_of(team, n, tile);  // data bound: a short last tile
    const std::int64_t out_begin = tile_out.begin;
    const int len = tile_out.len;
    const std::int64_t in_begin = n - out_begin - len;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, len), [&](int t) { staged(t) = in(in_begin + t); });
    // Participation: every member of the team. Data: staged[0, len). Publishes the tile to the members
    // that write its mirror image.
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, len), [&](int t) { out(out_begin + t) = staged(len - 1 - t); });
  }
};

template <class ExecutionSpace, class DataView>
struct ReverseTilesInPlace {
  using value_type = typename DataView::value_type;
  DataView data;
  std::int64_t n;
  int tile;
  KOKKOS_FUNCTION void operator()(const team_member<ExecutionSpace>& team) const {
    const scratch_view<ExecutionSpace, value_type> front(team.team_scratch(0), tile);
    const scratch_view<ExecutionSpace, value_type> back(team.team_scratch(0), tile);
    // The front half in tiles (an odd n leaves its middle element where it is).
    const team_slice front_tile = slice_of(team, n / 2, tile);
    const std::int64_t begin = front_tile.begin;
    const int len = front_tile.len;
    const std::int64_t mirror = n - begin - len;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, len), [&](int t) {
      front(t) = data(begin + t);
      back(t) = data(mirror + t);
    });
    // Participation: every member of the team. Data: front[0, len) and back[0, len). Publishes both tiles
    // before any member overwrites the values they were read from.
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, len), [&](int t) {
      data(begin + t) = back(len - 1 - t);
      data(mirror + t) = front(len - 1 - t);
    });
  }
};

// Team scratch for `views` Views of `count` values each: every View is aligned separately, so each gets
// slack for its alignment padding.
template <class T>
constexpr std::size_t scratch_bytes(int views, std::size_t count) {
  constexpr std::size_t alignment_slack = 128;
  return static_cast<std::size_t>(views) * (count * sizeof(T) + alignment_slack);
}

// The league size for `elements` in tiles of `tile`, after checking the tile and that one launch holds it.
inline int checked_tile_count(std::int64_t elements, int tile) {
  check_argument(tile >= 1 && tile <= 4096, "ksync::reverse", "tile = ", tile, " is outside [1, 4096]");
  const std::int64_t tiles = (elements + tile - 1) / tile;
  check_argument(tiles <= INT32_MAX, "ksync::reverse", "n needs ", tiles, " tiles of ", tile,
                 ", more than one launch holds; use a larger tile");
  return static_cast<int>(tiles);
}

}  // namespace detail

template <class ExecutionSpace, class InView, class OutView>
void reverse_in_block(const ExecutionSpace& exec, const InView& in, const OutView& out,
                      implementation how = implementation::portable) {
  constexpr const char* where = "ksync::reverse_in_block";
  detail::check_reverse_views<ExecutionSpace, InView, OutView>();
  using value_type = typename OutView::value_type;
  const auto n = in.extent(0);
  detail::check_argument(n <= static_cast<std::size_t>(reverse_in_block_capacity), where, "in.extent(0) = ", n,
                         " exceeds the block of ", reverse_in_block_capacity);
  detail::check_argument(out.extent(0) == n, where, "out.extent(0) = ", out.extent(0), " but in.extent(0) = ", n);
  if (detail::runs_native<"ksync::reverse_in_block", ExecutionSpace, value_type>(where, how)) {
    detail::check_contiguous(where, "in", in);
    detail::check_contiguous(where, "out", out);
    detail::native<"ksync::reverse_in_block", value_type>(exec, in, out);
    return;
  }
  Kokkos::TeamPolicy<ExecutionSpace> policy(exec, 1, Kokkos::AUTO);
  policy.set_scratch_size(0, Kokkos::PerTeam(detail::scratch_bytes<value_type>(1, reverse_in_block_capacity)));
  Kokkos::parallel_for("ksync::reverse::in_block", policy,
                       detail::ReverseInBlock<ExecutionSpace, InView, OutView>{in, out, static_cast<int>(n)});
}

template <class ExecutionSpace, class InView, class OutView>
  requires Kokkos::is_view_v<OutView>
void reverse(const ExecutionSpace& exec, const InView& in, const OutView& out, int tile = 256,
             implementation how = implementation::portable) {
  detail::check_reverse_views<ExecutionSpace, InView, OutView>();
  using value_type = typename OutView::value_type;
  const auto n = static_cast<std::int64_t>(in.extent(0));
  const int tiles = detail::checked_tile_count(n, tile);
  detail::check_argument(static_cast<std::int64_t>(out.extent(0)) == n, "ksync::reverse",
                         "out.extent(0) = ", out.extent(0), " but in.extent(0) = ", n);
  // Memory both Views reach (span() covers strided Views too): tiles read `in` while other teams write `out`.
  const auto* in_begin = reinterpret_cast<const char*>(in.data());
  const auto* out_begin = reinterpret_cast<const char*>(out.data());
  const bool disjoint =
      in_begin + in.span() * sizeof(value_type) <= out_begin || out_begin + out.span() * sizeof(value_type) <= in_begin;
  detail::check_argument(disjoint || n == 0, "ksync::reverse", "in and out overlap (n = ", n,
                         "); call reverse(exec, data) to reverse one View in place");
  if (detail::runs_native<"ksync::reverse", ExecutionSpace, value_type>("ksync::reverse", how)) {
    detail::check_contiguous("ksync::reverse", "in", in);
    detail::check_contiguous("ksync::reverse", "out", out);
    detail::native<"ksync::reverse", value_type>(exec, in, out, tile);
    return;
  }
  if (n == 0) return;
  Kokkos::TeamPolicy<ExecutionSpace> policy(exec, tiles, Kokkos::AUTO);
  policy.set_scratch_size(0, Kokkos::PerTeam(detail::scratch_bytes<value_type>(1, static_cast<std::size_t>(tile))));
  Kokkos::parallel_for("ksync::reverse::tiles", policy,
                       detail::ReverseTiles<ExecutionSpace, InView, OutView>{in, out, n, tile});
}

template <class ExecutionSpace, class DataView>
void reverse(const ExecutionSpace& exec, const DataView& data, int tile = 256,
             implementation how = implementation::portable) {
  detail::check_reverse_views<ExecutionSpace, DataView, DataView>();
  using value_type = typename DataView::value_type;
  const auto n = static_cast<std::int64_t>(data.extent(0));
  const int tiles = detail::checked_tile_count(n / 2, tile);
  if (detail::runs_native<"ksync::reverse", ExecutionSpace, value_type>("ksync::reverse", how)) {
    detail::check_contiguous("ksync::reverse", "data", data);
    detail::native<"ksync::reverse", value_type>(exec, data, tile);
    return;
  }
  if (n < 2) return;
  Kokkos::TeamPolicy<ExecutionSpace> policy(exec, tiles, Kokkos::AUTO);
  policy.set_scratch_size(0, Kokkos::PerTeam(detail::scratch_bytes<value_type>(2, static_cast<std::size_t>(tile))));
  Kokkos::parallel_for("ksync::reverse::tiles_in_place", policy,
                       detail::ReverseTilesInPlace<ExecutionSpace, DataView>{data, n, tile});
}

}  // namespace ksync
