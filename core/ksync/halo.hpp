// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A CSR matrix whose rows are split among ranks (plain C++, shared by both halves and by ksync::mpi): the
// block-row partition, and what one rank needs from the others to apply its rows, computed once from the
// sparsity pattern.
//
//   row_partition(rows, ranks)      rank r owns the rows [begin(r), end(r)): contiguous blocks, the first
//                                   rows % ranks ranks one row more.
//   rows_of(a, first, last)         rows [first, last) of a whole matrix, columns still global: what a rank
//                                   that assembled the whole matrix passes as its own rows.
//   localize(partition, rank, a)    a rank's rows (global column indices) -> local_rows: the same rows with
//                                   columns renumbered (the rank's own columns first, then its ghosts), the
//                                   interior and boundary rows, and the receive side of its halo plan.
//   add_sends(partition, plan, from, requested)
//                                   the send side: the ghosts rank `from` receives from this rank, in the
//                                   order `from` stores them (the MPI layer gathers every rank's requests).
//
// A product y = A x on rank r then reads x's own entries and, after the halo exchange, the ghosts' values:
// the interior rows (no ghost column) can run while the exchange travels, the boundary rows after it.
#pragma once

#include <ksync/csr.hpp>
#include <ksync/detail/arguments.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ksync {

// `rows` rows in contiguous blocks over `ranks` ranks, as even as integers allow.
class row_partition {
 public:
  row_partition(std::int64_t rows, int ranks) : rows_(rows), ranks_(ranks) {
    detail::check_argument(rows >= 0, "ksync::row_partition", "rows = ", rows, " must not be negative");
    detail::check_argument(ranks >= 1, "ksync::row_partition", "ranks = ", ranks, " must be at least 1");
  }

  [[nodiscard]] std::int64_t rows() const noexcept { return rows_; }
  [[nodiscard]] int ranks() const noexcept { return ranks_; }

  // The first row of `rank`; begin(ranks()) is rows().
  [[nodiscard]] std::int64_t begin(int rank) const {
    check_rank(rank, ranks_ + 1);
    const std::int64_t share = rows_ / ranks_;
    const std::int64_t extra = rows_ % ranks_;
    return rank * share + std::min<std::int64_t>(rank, extra);
  }
  [[nodiscard]] std::int64_t end(int rank) const { return begin(rank + 1); }
  [[nodiscard]] std::int64_t size(int rank) const { return end(rank) - begin(rank); }

  // The rank that owns global row (and column) `row`.
  [[nodiscard]] int owner(std::int64_t row) const {
    detail::check_argument(row >= 0 && row < rows_, "ksync::row_partition::owner", "row = ", row, " is outside [0, ",
                           rows_, ")");
    const std::int64_t share = rows_ / ranks_;
    const std::int64_t extra = rows_ % ranks_;
    const std::int64_t in_long_blocks = extra * (share + 1);  // the first `extra` ranks hold share + 1 rows
    return static_cast<int>(row < in_long_blocks ? row / (share + 1) : extra + (row - in_long_blocks) / share);
  }

 private:
  void check_rank(int rank, int bound) const {
    detail::check_argument(rank >= 0 && rank < bound, "ksync::row_partition", "rank = ", rank, " is outside [0, ",
                           bound, ")");
  }

  std::int64_t rows_;
  int ranks_;
};

// One rank's halo plan. Local column numbering: the rank's own columns 0 ... owned - 1 (global begin ... end
// - 1), then the ghosts owned + k, k < ghosts.size(), grouped by source rank in ascending rank order and
// ascending global index within a rank, so that what one rank sends arrives as one contiguous piece.
struct halo_plan {
  int rank = 0;
  std::int64_t owned = 0;
  std::vector<std::int64_t> ghosts;          // the global index of each ghost, in local order
  std::vector<int> source_ranks;             // the ranks ghosts come from, ascending
  std::vector<std::int64_t> source_offsets;  // ghosts [source_offsets[s], source_offsets[s + 1]) from source_ranks[s]
  std::vector<int> target_ranks;             // the ranks this one sends to, ascending (add_sends)
  std::vector<std::int64_t> target_offsets;  // sends [target_offsets[t], target_offsets[t + 1]) go to target_ranks[t]
  std::vector<std::int64_t> sends;           // the local (owned) index of each value sent, in the target's order

  [[nodiscard]] std::int64_t local_columns() const noexcept { return owned + static_cast<std::int64_t>(ghosts.size()); }
  // Whether this rank sends or receives anything in an exchange.
  [[nodiscard]] bool exchanges() const noexcept { return !sends.empty() || !ghosts.empty(); }
};

// Whether ascending rows (a rank's interior or boundary rows) are one run first, first + 1, ...: a kernel then walks
// a range instead of reading a list.
[[nodiscard]] inline bool is_one_run(const std::vector<std::int64_t>& rows) {
  return rows.empty() || rows.back() - rows.front() + 1 == static_cast<std::int64_t>(rows.size());
}

// A rank's rows with local column indices, and which of them can run before the halo arrives.
template <class T, class Index, class Offset>
struct local_rows {
  host_csr_matrix<T, Index, Offset> matrix;  // rows: the rank's rows; cols: plan.local_columns()
  std::vector<std::int64_t> interior;        // local rows reading own columns only, ascending
  std::vector<std::int64_t> boundary;        // local rows reading at least one ghost, ascending
  halo_plan plan;                            // the receive side; add_sends completes the send side
};

// Rank `rank`'s rows of a matrix split by `partition`: `a` holds those rows (partition.size(rank) of them) with
// global column indices (a.cols == partition.rows(): the matrix is square). Each row keeps its entries in
// their order, so a local product adds the same terms in the same order as the global one.
template <class T, class Index, class Offset>
local_rows<T, Index, Offset> localize(const row_partition& partition, int rank,
                                      const host_csr_matrix<T, Index, Offset>& a) {
  constexpr const char* where = "ksync::localize";
  detail::check_argument(rank >= 0 && rank < partition.ranks(), where, "rank = ", rank, " is outside [0, ",
                         partition.ranks(), ")");
  detail::check_argument(a.rows == partition.size(rank), where, "a.rows = ", a.rows, " but rank ", rank, " owns ",
                         partition.size(rank), " of the partition's ", partition.rows(), " rows");
  detail::check_argument(a.cols == partition.rows(), where, "a.cols = ", a.cols, " but the partition has ",
                         partition.rows(), " rows (the matrix must be square)");
  a.check(where);
  const std::int64_t first = partition.begin(rank);
  const std::int64_t last = partition.end(rank);
  const auto is_own = [&](std::int64_t column) { return column >= first && column < last; };

  local_rows<T, Index, Offset> out;
  out.plan.rank = rank;
  out.plan.owned = a.rows;
  // The ghosts: every column outside [first, last), once, ordered by global index (which orders them by
  // owner too: blocks are contiguous and ascending).
  for (const Index column : a.columns)
    if (!is_own(static_cast<std::int64_t>(column))) out.plan.ghosts.push_back(static_cast<std::int64_t>(column));
  std::ranges::sort(out.plan.ghosts);
  const auto repeated = std::ranges::unique(out.plan.ghosts);
  out.plan.ghosts.erase(repeated.begin(), repeated.end());
  for (std::size_t k = 0; k < out.plan.ghosts.size(); ++k) {
    const int source = partition.owner(out.plan.ghosts[k]);
    if (out.plan.source_ranks.empty() || out.plan.source_ranks.back() != source) {
      out.plan.source_ranks.push_back(source);
      out.plan.source_offsets.push_back(static_cast<std::int64_t>(k));
    }
  }
  out.plan.source_offsets.push_back(static_cast<std::int64_t>(out.plan.ghosts.size()));

  out.matrix.rows = a.rows;
  out.matrix.cols = out.plan.local_columns();
  out.matrix.row_offsets = a.row_offsets;
  out.matrix.values = a.values;
  out.matrix.columns.resize(a.columns.size());
  for (std::int64_t i = 0; i < a.rows; ++i) {
    bool reads_ghost = false;
    for (auto k = static_cast<std::int64_t>(a.row_offsets[i]); k < static_cast<std::int64_t>(a.row_offsets[i + 1]);
         ++k) {
      const auto column = static_cast<std::int64_t>(a.columns[k]);
      std::int64_t local = column - first;
      if (!is_own(column)) {
        reads_ghost = true;
        local = a.rows + (std::ranges::lower_bound(out.plan.ghosts, column) - out.plan.ghosts.begin());
      }
      out.matrix.columns[k] = static_cast<Index>(local);
    }
    (reads_ghost ? out.boundary : out.interior).push_back(i);
  }
  return out;
}

// Adds to `plan` (this rank's) what rank `from` asks of it: `requested`, the global indices of the ghosts
// `from` receives from this rank, in `from`'s order (its plan's ghosts in [source_offsets[s],
// source_offsets[s + 1]) where source_ranks[s] is this rank). Call it once per rank that asks, in ascending
// rank order; every index must be one this rank owns.
inline void add_sends(const row_partition& partition, halo_plan& plan, int from,
                      std::span<const std::int64_t> requested) {
  constexpr const char* where = "ksync::add_sends";
  detail::check_argument(from >= 0 && from < partition.ranks() && from != plan.rank, where, "from = ", from,
                         " must be another rank of [0, ", partition.ranks(), ")");
  detail::check_argument(plan.target_ranks.empty() || plan.target_ranks.back() < from, where, "from = ", from,
                         " comes after rank ", plan.target_ranks.empty() ? -1 : plan.target_ranks.back(),
                         ": add the ranks in ascending order, each once");
  if (requested.empty()) return;
  const std::int64_t first = partition.begin(plan.rank);
  // Every index is checked before the plan changes, so a refusal leaves the plan as it was.
  for (const std::int64_t global : requested)
    detail::check_argument(global >= first && global < first + plan.owned, where, "rank ", from, " asks for row ",
                           global, ", which rank ", plan.rank, " does not own (it owns [", first, ", ",
                           first + plan.owned, "))");
  if (plan.target_offsets.empty()) plan.target_offsets.push_back(0);
  for (const std::int64_t global : requested)
    plan.sends.push_back(global - first);
  plan.target_ranks.push_back(from);
  plan.target_offsets.push_back(static_cast<std::int64_t>(plan.sends.size()));
}

// Rows [first, last) of `a`, their columns still global: what one rank of a row-split matrix is given.
template <class T, class Index, class Offset>
host_csr_matrix<T, Index, Offset> rows_of(const host_csr_matrix<T, Index, Offset>& a, std::int64_t first,
                                          std::int64_t last) {
  detail::check_argument(0 <= first && first <= last && last <= a.rows, "ksync::rows_of", "rows [", first, ", ", last,
                         ") are not within the matrix's ", a.rows, " rows");
  host_csr_matrix<T, Index, Offset> part;
  part.rows = last - first;
  part.cols = a.cols;
  for (std::int64_t i = first; i < last; ++i) {
    for (auto k = static_cast<std::int64_t>(a.row_offsets[i]); k < static_cast<std::int64_t>(a.row_offsets[i + 1]);
         ++k) {
      part.columns.push_back(a.columns[k]);
      part.values.push_back(a.values[k]);
    }
    part.row_offsets.push_back(static_cast<Offset>(part.columns.size()));
  }
  return part;
}

}  // namespace ksync
