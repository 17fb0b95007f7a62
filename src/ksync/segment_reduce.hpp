// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::segment_reduce — one team per segment of `segment_size` consecutive values, each reduced with a
// team-scope form, written with Kokkos alone. The native twin is ksync::cuda::segment_reduce:
//   out(s) = op(data(s*segment_size), ..., data(min((s+1)*segment_size, n) - 1)),  s < ceil(n / segment_size)
// Asynchronous on `exec`. The forms:
//   team_reduce          each member folds a strided share of the segment, then member.team_reduce
//   team_thread_range    a nested parallel_reduce over TeamThreadRange
//   team_vector_range    a nested parallel_reduce over TeamVectorRange (threads and vector lanes at once)
//   thread_vector_range  TeamThreadRange over chunks of 32, each chunk reduced over ThreadVectorRange
#pragma once

#include <ksync/detail/checks.hpp>
#include <ksync/detail/fold.hpp>
#include <ksync/types.hpp>

#include <cstdint>
#include <string_view>
#include <type_traits>

namespace ksync {

enum class team_reduce_form { team_reduce, team_thread_range, team_vector_range, thread_vector_range };

[[nodiscard]] constexpr std::string_view to_string(team_reduce_form form) noexcept {
  switch (form) {
    case team_reduce_form::team_reduce:
      return "team_reduce";
    case team_reduce_form::team_thread_range:
      return "team_thread_range";
    case team_reduce_form::team_vector_range:
      return "team_vector_range";
    case team_reduce_form::thread_vector_range:
      return "thread_vector_range";
  }
  return "unknown";
}

namespace detail {

template <class ExecutionSpace, reduce_op Op, team_reduce_form Form, class DataView, class OutView>
struct SegmentReduce {
  using value_type = typename OutView::value_type;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using reducer = typename kokkos_reducer<Op, value_type, Kokkos::HostSpace>::type;  // binds a local value
  static constexpr int vector_chunk = 32;
  DataView data;
  OutView out;
  std::int64_t n;
  int segment_size;

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    const std::int64_t begin = static_cast<std::int64_t>(team.league_rank()) * segment_size;
    const int len = static_cast<int>(n - begin < segment_size ? n - begin : segment_size);  // data bound
    value_type result{};
    const auto fold = [&](int i, value_type& acc) { reducer(acc).join(acc, data(begin + i)); };
    if constexpr (Form == team_reduce_form::team_reduce) {
      value_type local;
      reducer(local).init(local);
      for (int i = team.team_rank(); i < len; i += team.team_size())
        fold(i, local);
      // team_reduce is a team-wide collective: participation = every member (those with no element hold the
      // identity); data = each member's partial. It publishes the combined value to every member.
      team.team_reduce(reducer(local));
      result = local;
    } else if constexpr (Form == team_reduce_form::team_thread_range) {
      // Nested reductions are team collectives too: every member enters (participation), the range stops at
      // len (data), and the result reaches every member.
      Kokkos::parallel_reduce(Kokkos::TeamThreadRange(team, len), fold, reducer(result));
    } else if constexpr (Form == team_reduce_form::team_vector_range) {
      Kokkos::parallel_reduce(Kokkos::TeamVectorRange(team, len), fold, reducer(result));
    } else {
      const int chunks = (len + vector_chunk - 1) / vector_chunk;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, chunks),
          [&](int chunk, value_type& acc) {
            const int first = chunk * vector_chunk;
            const int count = len - first < vector_chunk ? len - first : vector_chunk;
            value_type part;
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(team, count), [&](int j, value_type& a) { fold(first + j, a); },
                reducer(part));
            reducer(acc).join(acc, part);
          },
          reducer(result));
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { out(team.league_rank()) = result; });
  }
};

template <class ExecutionSpace, reduce_op Op, class DataView, class OutView>
void launch_segment_reduce(const ExecutionSpace& exec, const DataView& data, int segment_size, team_reduce_form form,
                           const OutView& out) {
  const auto n = static_cast<std::int64_t>(data.extent(0));
  const int segments = static_cast<int>((n + segment_size - 1) / segment_size);
  const auto run = [&](auto form_tag) {
    constexpr team_reduce_form f = decltype(form_tag)::value;
    using functor = SegmentReduce<ExecutionSpace, Op, f, DataView, OutView>;
    Kokkos::TeamPolicy<ExecutionSpace> policy(exec, segments, Kokkos::AUTO, Kokkos::AUTO);
    Kokkos::parallel_for("ksync::segment_reduce", policy, functor{data, out, n, segment_size});
  };
  switch (form) {
    case team_reduce_form::team_reduce:
      run(std::integral_constant<team_reduce_form, team_reduce_form::team_reduce>{});
      break;
    case team_reduce_form::team_thread_range:
      run(std::integral_constant<team_reduce_form, team_reduce_form::team_thread_range>{});
      break;
    case team_reduce_form::team_vector_range:
      run(std::integral_constant<team_reduce_form, team_reduce_form::team_vector_range>{});
      break;
    case team_reduce_form::thread_vector_range:
      run(std::integral_constant<team_reduce_form, team_reduce_form::thread_vector_range>{});
      break;
  }
}

}  // namespace detail

// Asynchronous on `exec`. `out` must have ceil(n / segment_size) elements; segment_size >= 1.
template <class ExecutionSpace, class DataView, class OutView>
void segment_reduce(const ExecutionSpace& exec, const DataView& data, int segment_size, reduce_op op,
                    team_reduce_form form, const OutView& out) {
  static_assert(Kokkos::is_execution_space_v<ExecutionSpace>,
                "ksync::segment_reduce: the first argument must be a Kokkos execution space instance");
  static_assert(
      detail::is_usable_view_v<ExecutionSpace, DataView, 1> && detail::is_usable_view_v<ExecutionSpace, OutView, 1>,
      "ksync::segment_reduce: `data` and `out` must be rank-1 Views that `exec` can access");
  static_assert(std::is_same_v<typename DataView::non_const_value_type, typename OutView::value_type> &&
                    std::is_arithmetic_v<typename OutView::value_type>,
                "ksync::segment_reduce: `out` must be a non-const View of `data`'s arithmetic value type");
  const auto n = static_cast<std::int64_t>(data.extent(0));
  detail::checked_segment_count("ksync::segment_reduce", n, segment_size, static_cast<std::int64_t>(out.extent(0)));
  if (n == 0) return;
  with_operator(op, [&](auto op_functor) {
    detail::launch_segment_reduce<ExecutionSpace, decltype(op_functor)::id>(exec, data, segment_size, form, out);
  });
}

}  // namespace ksync
