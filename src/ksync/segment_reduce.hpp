// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::segment_reduce — one reduction per segment of `segment_size` consecutive values:
//   out(s) = op(data(s*segment_size), ..., data(min((s+1)*segment_size, n) - 1)),  s < ceil(n / segment_size)
// Asynchronous on `exec`. The portable forms (ksync::segment_form, types.hpp) run one Kokkos team per
// segment, one file each in detail/segment_reduce/; the native forms tree and shuffle run ksync::cuda::
// segment_reduce's block reductions on Kokkos::Cuda through the bridge (segment sizes
// ksync::cuda::segment_reduce_sizes) and are refused elsewhere.
#pragma once

#include <ksync/detail/bridge/segment_reduce.hpp>
#include <ksync/detail/checks.hpp>
#include <ksync/detail/reduction.hpp>
#include <ksync/detail/segment_reduce/forms.hpp>
#include <ksync/detail/team_slice.hpp>
#include <ksync/types.hpp>

#include <cstdint>
#include <type_traits>

namespace ksync {

namespace detail {

template <class ExecutionSpace, reduce_op Op, class Form, class DataView, class OutView>
struct SegmentReduce {
  using value_type = typename OutView::value_type;
  using reducer = typename kokkos_reducer<Op, value_type, Kokkos::HostSpace>::type;  // binds a local value
  DataView data;
  OutView out;
  std::int64_t n;
  int segment_size;

  KOKKOS_FUNCTION void operator()(const team_member<ExecutionSpace>& team) const {
    const team_slice segment = slice_of(team, n, segment_size);  // data bound: segment.len
    const auto fold = [&](int i, value_type& acc) { reducer(acc).join(acc, data(segment.begin + i)); };
    value_type result;
    Form::template reduce<reducer>(team, segment.len, fold, result);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { out(team.league_rank()) = result; });
  }
};

}  // namespace detail

// Asynchronous on `exec`. `out` must have ceil(n / segment_size) elements; segment_size >= 1 (for the
// native forms, one of ksync::cuda::segment_reduce_sizes).
template <class ExecutionSpace, class DataView, class OutView>
void segment_reduce(const ExecutionSpace& exec, const DataView& data, int segment_size, reduce_op op, segment_form form,
                    const OutView& out) {
  constexpr const char* where = "ksync::segment_reduce";
  static_assert(detail::takes_exec_and_two_views_v<ExecutionSpace, DataView, OutView>,
                "ksync::segment_reduce: the first argument must be a Kokkos execution space instance, `data` and `out` "
                "rank-1 Views that it can access");
  static_assert(std::is_same_v<typename DataView::non_const_value_type, typename OutView::value_type> &&
                    std::is_arithmetic_v<typename OutView::value_type>,
                "ksync::segment_reduce: `out` must be a non-const View of `data`'s arithmetic value type");
  const auto n = static_cast<std::int64_t>(data.extent(0));
  detail::checked_segment_count(where, n, segment_size, static_cast<std::int64_t>(out.extent(0)));
  detail::check_argument(is_known(form), where, "form = ", static_cast<int>(form), " is not a segment_form");
  detail::check_native_reachable<"ksync::segment_reduce", ExecutionSpace, typename OutView::value_type>(where, "form",
                                                                                                        form);
  if (is_native(form)) {
    detail::check_contiguous(where, "data", data);
    detail::check_contiguous(where, "out", out);
    detail::native<"ksync::segment_reduce", typename OutView::value_type>(exec, data, segment_size, op, form, out);
    return;
  }
  if (n == 0) return;
  const int segments = static_cast<int>((n + segment_size - 1) / segment_size);
  with_operator(op, [&](auto op_functor) {
    detail::portable_segment_forms::dispatch(where, form, [&]<class Form>() {
      using functor = detail::SegmentReduce<ExecutionSpace, decltype(op_functor)::id, Form, DataView, OutView>;
      Kokkos::parallel_for("ksync::segment_reduce",
                           Kokkos::TeamPolicy<ExecutionSpace>(exec, segments, Kokkos::AUTO, Kokkos::AUTO),
                           functor{data, out, n, segment_size});
    });
  });
}

}  // namespace ksync
