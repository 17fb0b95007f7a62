// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// spmv_strategy::lanes_per_row (portable) — a TeamPolicy whose vector length is spmv_vector_length (a power
// of two at or below an eighth of the mean row length, 4..32); a TeamThreadRange over the team's rows
// gives each member rows, and a ThreadVectorRange over the member's lanes folds one row: lane l sums the
// entries l, l + lanes, ... (csr_row_share, ksync/csr.hpp), so that on a GPU the lanes' loads coalesce, and
// the vector reduction adds the lanes' shares. On CPU backends the lanes run one after another in one thread
// (automatic never picks this row there).
#pragma once

#include <ksync/backend.hpp>
#include <ksync/csr.hpp>
#include <ksync/detail/arguments.hpp>
#include <ksync/detail/spmv_choice.hpp>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

#include <Kokkos_Core.hpp>

#include <climits>
#include <cstdint>

namespace ksync::detail {

template <class T, class Offset, class Index, class XView, class YView, class Member>
struct SpmvLanesPerRow {
  const Offset* row_offsets;
  const Index* columns;
  const T* values;
  XView x;
  YView y;
  std::int64_t rows;
  std::int64_t rows_per_team;
  int lanes;

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
    const std::int64_t last = first + rows_per_team < rows ? first + rows_per_team : rows;  // the last team's rows
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](std::int64_t i) {
      T sum = 0;
      // A collective of the member's vector lanes: every lane enters it (participation: the range is the
      // vector length itself, one share per lane, the same i for all); a lane reads only entries before the
      // row's end (data: csr_row_share stops there, a share past it is 0). It publishes the row's sum to
      // every lane of the member.
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes),
          [&](int lane, T& partial) { partial += csr_row_share<T>(row_offsets, columns, values, x, i, lane, lanes); },
          sum);
      Kokkos::single(Kokkos::PerThread(team), [&]() { y(i) = sum; });  // one store per row
    });
  }
};

namespace spmv_strategies {

struct lanes_per_row : implements<spmv_strategy::lanes_per_row> {
  // Rows per member: one on a GPU (the team's threads are its parallelism); on CPU backends, where a team is
  // one or a few threads, 64, as Kokkos Kernels' spmv gives a host thread, so that a team is worth its start.
  template <class ExecutionSpace>
  static constexpr std::int64_t rows_per_member = runs_on_host<ExecutionSpace> ? 64 : 1;

  template <class ExecutionSpace, class Matrix, class XView, class YView>
  static void run(const ExecutionSpace& exec, const Matrix& a, const XView& x, const YView& y) {
    using T = typename Matrix::value_type;
    using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
    using Functor = SpmvLanesPerRow<T, typename Matrix::offset_type, typename Matrix::index_type, XView, YView,
                                    typename Policy::member_type>;
    const int lanes = spmv_vector_length(a.rows(), a.nnz());
    Functor functor{a.row_offsets().data(), a.columns().data(), a.values().data(), x, y, a.rows(), 0, lanes};
    const int team_size = Policy(exec, 1, 1, lanes).team_size_recommended(functor, Kokkos::ParallelForTag());
    functor.rows_per_team = static_cast<std::int64_t>(team_size) * rows_per_member<ExecutionSpace>;
    const std::int64_t teams = (a.rows() + functor.rows_per_team - 1) / functor.rows_per_team;
    check_argument(teams <= INT_MAX, "ksync::spmv", "a has ", a.rows(), " rows, more than ", INT_MAX,
                   " teams of lanes_per_row hold; use row_per_thread");
    Kokkos::parallel_for("ksync::spmv::lanes_per_row", Policy(exec, static_cast<int>(teams), team_size, lanes),
                         functor);
  }
};

}  // namespace spmv_strategies
}  // namespace ksync::detail
