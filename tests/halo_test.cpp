// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::row_partition, ksync::localize and ksync::add_sends (ksync/halo.hpp), the plain C++ under a CSR
// matrix split among ranks: every rank of a partition simulated in one process, against the global matrix.
#include "support/errors.hpp"
#include "support/sparse.hpp"

#include <ksync/halo.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace {

using ksync::host_csr_matrix;
using ksync::row_partition;
using ksync::rows_of;
using ksync::test::host_product;
using ksync::test::refuses;
using ksync::test::sparse_family;

using matrix = host_csr_matrix<double, std::int32_t>;

std::vector<double> some_x(std::int64_t n) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j)
    x[j] = static_cast<double>((j * 7) % 13) - 6.0 + 0.125 * static_cast<double>(j % 5);
  return x;
}

TEST(RowPartition, BlocksAreContiguousBalancedAndOwnerIsTheirInverse) {
  for (const std::int64_t rows : {0, 1, 2, 5, 7, 64, 1000}) {
    for (const int ranks : {1, 2, 3, 4, 5, 8}) {
      const row_partition partition(rows, ranks);
      EXPECT_EQ(partition.begin(0), 0);
      EXPECT_EQ(partition.end(ranks - 1), rows);
      for (int r = 0; r < ranks; ++r) {
        EXPECT_EQ(partition.end(r), partition.begin(r + 1));
        EXPECT_GE(partition.size(r), rows / ranks);
        EXPECT_LE(partition.size(r), rows / ranks + 1);
        for (std::int64_t row = partition.begin(r); row < partition.end(r); ++row)
          ASSERT_EQ(partition.owner(row), r) << rows << " rows over " << ranks << " ranks, row " << row;
      }
    }
  }
}

TEST(RowPartition, RefusesNamingTheArgument) {
  EXPECT_TRUE(refuses([] { (void)row_partition(-1, 2); }, "rows = -1 must not be negative"));
  EXPECT_TRUE(refuses([] { (void)row_partition(10, 0); }, "ranks = 0 must be at least 1"));
  const row_partition partition(10, 3);
  EXPECT_TRUE(refuses([&] { (void)partition.owner(10); }, "row = 10 is outside [0, 10)"));
  EXPECT_TRUE(refuses([&] { (void)partition.begin(5); }, "rank = 5 is outside [0, 4)"));
}

// Every rank's local product, its own x and its ghosts' values gathered from the global x, gives the global
// product's rows bit for bit; interior rows read no ghost, boundary rows at least one.
TEST(Localize, LocalProductsGiveTheGlobalRowsAndRowsAreSplitByGhosts) {
  for (const auto family : ksync::test::all_sparse_families) {
    const matrix a = ksync::test::generate<double, std::int32_t>(family, family == sparse_family::poisson_3d ? 4 : 7);
    const auto x = some_x(a.cols);
    const auto y = host_product(a, x);
    for (const int ranks : {1, 2, 3, 5}) {
      const row_partition partition(a.rows, ranks);
      for (int r = 0; r < ranks; ++r) {
        const auto local = ksync::localize(partition, r, rows_of(a, partition.begin(r), partition.end(r)));
        const auto& plan = local.plan;
        ASSERT_EQ(local.matrix.cols, plan.local_columns());
        std::vector<double> x_local(x.begin() + partition.begin(r), x.begin() + partition.end(r));
        for (const std::int64_t ghost : plan.ghosts) {
          EXPECT_NE(partition.owner(ghost), r);
          x_local.push_back(x[ghost]);
        }
        const auto y_local = host_product(local.matrix, x_local);
        for (std::int64_t i = 0; i < local.matrix.rows; ++i)
          ASSERT_EQ(y_local[i], y[partition.begin(r) + i]) << to_string(family) << ", rank " << r << " of " << ranks;
        EXPECT_EQ(local.interior.size() + local.boundary.size(), static_cast<std::size_t>(local.matrix.rows));
        const auto reads_ghost = [&](std::int64_t i) {
          for (std::int32_t k = local.matrix.row_offsets[i]; k < local.matrix.row_offsets[i + 1]; ++k)
            if (local.matrix.columns[k] >= plan.owned) return true;
          return false;
        };
        for (const std::int64_t i : local.interior)
          EXPECT_FALSE(reads_ghost(i));
        for (const std::int64_t i : local.boundary)
          EXPECT_TRUE(reads_ghost(i));
        if (ranks == 1) {
          EXPECT_TRUE(plan.ghosts.empty() && local.boundary.empty());
          EXPECT_FALSE(plan.exchanges());
        } else {
          EXPECT_FALSE(local.boundary.empty()) << to_string(family) << ": every family's graph is connected";
          EXPECT_TRUE(plan.exchanges()) << to_string(family) << ", rank " << r << " of " << ranks;
        }
      }
    }
  }
}

// Rows walk as a range only where they are consecutive: none, one, a run; rows with a gap are a list.
TEST(Localize, RowsAreOneRunOnlyWhereConsecutive) {
  EXPECT_TRUE(ksync::is_one_run({}));
  EXPECT_TRUE(ksync::is_one_run({7}));
  EXPECT_TRUE(ksync::is_one_run({3, 4, 5, 6}));
  EXPECT_FALSE(ksync::is_one_run({3, 4, 6}));
  EXPECT_FALSE(ksync::is_one_run({0, 2, 3}));
}

// The send sides built from every rank's requests deliver, for each rank, exactly the ghost values it
// expects from each source, in its order.
TEST(AddSends, EveryRankReceivesItsGhostsInItsOrder) {
  const matrix a = ksync::test::generate<double, std::int32_t>(sparse_family::random_laplacian, 9);
  const auto x = some_x(a.cols);
  for (const int ranks : {2, 3, 4}) {
    const row_partition partition(a.rows, ranks);
    std::vector<ksync::local_rows<double, std::int32_t, std::int32_t>> locals;
    locals.reserve(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r)
      locals.push_back(ksync::localize(partition, r, rows_of(a, partition.begin(r), partition.end(r))));
    // What the MPI layer gathers: each rank's requests, delivered to each source in ascending order of the
    // asking rank.
    for (int from = 0; from < ranks; ++from) {
      const auto& asking = locals[from].plan;
      for (std::size_t s = 0; s < asking.source_ranks.size(); ++s) {
        const std::span<const std::int64_t> requested(asking.ghosts.data() + asking.source_offsets[s],
                                                      asking.ghosts.data() + asking.source_offsets[s + 1]);
        ksync::add_sends(partition, locals[asking.source_ranks[s]].plan, from, requested);
      }
    }
    // The exchange: each rank sends x(own sends) to each target; each target finds them in its ghost slots.
    std::vector<std::vector<double>> ghost_values(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r)
      ghost_values[r].assign(locals[r].plan.ghosts.size(), -1.0e300);
    for (int s = 0; s < ranks; ++s) {
      const auto& sender = locals[s].plan;
      for (std::size_t t = 0; t < sender.target_ranks.size(); ++t) {
        const auto& receiver = locals[sender.target_ranks[t]].plan;
        const auto slot = std::ranges::find(receiver.source_ranks, s) - receiver.source_ranks.begin();
        ASSERT_LT(static_cast<std::size_t>(slot), receiver.source_ranks.size());
        ASSERT_EQ(sender.target_offsets[t + 1] - sender.target_offsets[t],
                  receiver.source_offsets[slot + 1] - receiver.source_offsets[slot]);
        for (std::int64_t k = sender.target_offsets[t]; k < sender.target_offsets[t + 1]; ++k)
          ghost_values[sender.target_ranks[t]][receiver.source_offsets[slot] + (k - sender.target_offsets[t])] =
              x[partition.begin(s) + sender.sends[k]];
      }
    }
    for (int r = 0; r < ranks; ++r)
      for (std::size_t g = 0; g < locals[r].plan.ghosts.size(); ++g)
        ASSERT_EQ(ghost_values[r][g], x[locals[r].plan.ghosts[g]]) << "rank " << r << " of " << ranks;
  }
}

// rows_of cuts a rank's rows out of a whole matrix: the cut keeps every entry of those rows, global columns
// and all, and a range outside the matrix is refused naming it.
TEST(RowsOf, KeepsTheRowsEntriesAndRefusesARangeOutsideTheMatrix) {
  const matrix a = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 4);
  const matrix part = rows_of(a, 6, 11);
  ASSERT_EQ(part.rows, 5);
  EXPECT_EQ(part.cols, a.cols);
  ASSERT_EQ(part.row_offsets.size(), 6U);
  for (std::int64_t i = 0; i < part.rows; ++i) {
    const auto first = a.row_offsets[6 + i];
    ASSERT_EQ(part.row_offsets[i + 1] - part.row_offsets[i], a.row_offsets[7 + i] - first) << "row " << 6 + i;
    for (auto k = part.row_offsets[i]; k < part.row_offsets[i + 1]; ++k) {
      EXPECT_EQ(part.columns[k], a.columns[first + k - part.row_offsets[i]]) << "row " << 6 + i;
      EXPECT_EQ(part.values[k], a.values[first + k - part.row_offsets[i]]) << "row " << 6 + i;
    }
  }
  EXPECT_EQ(rows_of(a, 3, 3).rows, 0);
  EXPECT_TRUE(refuses([&] { (void)rows_of(a, 10, 17); }, "rows [10, 17) are not within the matrix's 16 rows"));
  EXPECT_TRUE(refuses([&] { (void)rows_of(a, -1, 2); }, "rows [-1, 2) are not within the matrix's 16 rows"));
  EXPECT_TRUE(refuses([&] { (void)rows_of(a, 5, 4); }, "rows [5, 4) are not within the matrix's 16 rows"));
}

TEST(Localize, RefusesRowsThatDoNotMatchThePartition) {
  const matrix a = ksync::test::generate<double, std::int32_t>(sparse_family::poisson_2d, 4);
  const row_partition partition(a.rows, 3);  // 6, 5, 5 rows
  EXPECT_TRUE(refuses([&] { (void)ksync::localize(partition, 0, rows_of(a, 0, 5)); },
                      "a.rows = 5 but rank 0 owns 6 of the partition's 16 rows"));
  EXPECT_TRUE(refuses([&] { (void)ksync::localize(partition, 3, rows_of(a, 0, 6)); }, "rank = 3 is outside [0, 3)"));
  matrix wide = rows_of(a, 0, 6);
  wide.cols = 20;
  EXPECT_TRUE(refuses([&] { (void)ksync::localize(partition, 0, wide); },
                      "a.cols = 20 but the partition has 16 rows (the matrix must be square)"));
  ksync::halo_plan plan = ksync::localize(partition, 1, rows_of(a, 6, 11)).plan;
  const std::vector<std::int64_t> foreign{7, 2};  // the first one owned, the second not
  EXPECT_TRUE(refuses([&] { ksync::add_sends(partition, plan, 0, foreign); },
                      "rank 0 asks for row 2, which rank 1 does not own (it owns [6, 11))"));
  EXPECT_TRUE(plan.sends.empty() && plan.target_ranks.empty() && plan.target_offsets.empty())
      << "a refused request must leave the plan as it was";
  EXPECT_TRUE(refuses([&] { ksync::add_sends(partition, plan, 1, {}); }, "from = 1 must be another rank"));
  const std::vector<std::int64_t> own{6};
  ksync::add_sends(partition, plan, 2, own);
  EXPECT_TRUE(refuses([&] { ksync::add_sends(partition, plan, 0, own); }, "from = 0 comes after rank 2"));
}

}  // namespace
