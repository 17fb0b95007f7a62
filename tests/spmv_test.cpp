// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::spmv (portable) against the host reference in double (support/spmv.hpp): every strategy the rows give
// the portable half, float and double, every index pair, every generated family and the matrices with empty
// and long rows; the labels, what `automatic` runs, and the refusals.
#include "support/spmv.hpp"
#include "support/errors.hpp"
#include "support/kokkos.hpp"
#include "support/types.hpp"

#include <ksync/csr_matrix.hpp>
#include <ksync/detail/spmv_choice.hpp>
#include <ksync/spmv.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace ksync::test {
namespace {

using exec_space = Kokkos::DefaultExecutionSpace;
using memory_space = exec_space::memory_space;

const std::vector<spmv_strategy> strategies = ids_of_half<spmv_strategy>(strategy_half::portable);

KSYNC_TYPED_SUITE(Spmv, floating_types);

// y = A x in every strategy; y starts poisoned, so a row left unwritten (an empty one included) shows.
template <class T, class Index, class Offset>
void expect_every_strategy_agrees(const host_csr_matrix<T, Index, Offset>& host) {
  const exec_space exec;
  const csr_matrix<T, Index, memory_space, Offset> a(exec, host);
  const auto x_host = sparse_right_hand_side<T>(host.cols, 5u + static_cast<unsigned int>(host.rows));
  const auto reference = spmv_expected(host, x_host);
  const auto x = to_device(x_host);
  for (const auto strategy : strategies) {
    SCOPED_TRACE("strategy " + std::string(to_string(strategy)));
    const auto y = to_device(std::vector<T>(static_cast<std::size_t>(host.rows), static_cast<T>(12345)));
    spmv(exec, a, x, y, strategy);
    EXPECT_TRUE(agrees(to_host(y), reference));
  }
}

TYPED_TEST(Spmv, EveryStrategyIndexPairAndMatrixMatchesTheReference) {
  using T = TypeParam;
  const auto check = [&]<class Index, class Offset>() {
    for (const auto& c : spmv_cases<T, Index, Offset>()) {
      SCOPED_TRACE(c.name + ", Index " + std::to_string(sizeof(Index) * 8) + ", Offset " +
                   std::to_string(sizeof(Offset) * 8));
      expect_every_strategy_agrees(c.a);
    }
  };
  for_each_index_pair(check);
  check.template operator()<std::int32_t, std::uint64_t>();  // Kokkos Kernels' size_t offsets
}

// x as a column of a row-major 2-D View (LayoutStride): the kernels read it through the View.
TEST(Spmv, TakesAStridedX) {
  const exec_space exec;
  const auto host = with_long_rows<double, std::int32_t>(40, 30, 70);
  const csr_matrix a(exec, host);
  const auto x_host = sparse_right_hand_side<double>(host.cols, 3u);
  const auto x = Kokkos::subview(Kokkos::View<double**, Kokkos::LayoutRight>("xr", host.cols, 2), Kokkos::ALL, 0);
  Kokkos::deep_copy(x, to_device(x_host));
  for (const auto strategy : strategies) {
    SCOPED_TRACE("strategy " + std::string(to_string(strategy)));
    const Kokkos::View<double*> y("y", host.rows);
    spmv(exec, a, x, y, strategy);
    EXPECT_TRUE(agrees(to_host(y), spmv_expected(host, x_host)));
  }
}

// Each implementation runs under its own label, asynchronously: nothing but the kernel is begun.
TEST(Spmv, EachStrategyRunsOneKernelUnderItsLabel) {
  const exec_space exec;
  const auto host = generate<double, std::int32_t>(sparse_family::poisson_2d, 5);
  const csr_matrix a(exec, host);
  const Kokkos::View<double*> x("x", host.cols);
  const Kokkos::View<double*> y("y", host.rows);
  for (const auto strategy : implementations_of_half<spmv_strategy>(strategy_half::portable)) {
    const tools_labels seen;
    spmv(exec, a, x, y, strategy);
    exec.fence();
    EXPECT_EQ(seen.kernels, std::vector<std::string>{"ksync::spmv::" + std::string(to_string(strategy))});
  }
}

// `automatic`: a row per thread on CPU backends whatever the rows; on a GPU backend lanes_per_row from a mean
// row length of spmv_long_rows(strategy_half::portable) = 16.
TEST(Spmv, AutomaticPicksByBackendAndMeanRowLength) {
  const exec_space exec;
  const bool on_gpu = !runs_on_host<exec_space>;
  const std::pair<host_csr_matrix<double, std::int32_t>, bool> matrices[] = {
      {generate<double, std::int32_t>(sparse_family::poisson_3d, 4), false},  // 7 entries a row at most
      {with_long_rows<double, std::int32_t>(157, 2111, 600), false},          // mean 13: a row per thread still
      {with_long_rows<double, std::int32_t>(157, 2111, 2000), on_gpu},        // mean 40
  };
  for (const auto& [host, lanes] : matrices) {
    const csr_matrix a(exec, host);
    const Kokkos::View<double*> x("x", host.cols);
    const Kokkos::View<double*> y("y", host.rows);
    const tools_labels seen;
    spmv(exec, a, x, y);
    exec.fence();
    EXPECT_EQ(seen.kernels,
              std::vector<std::string>{lanes ? "ksync::spmv::lanes_per_row" : "ksync::spmv::row_per_thread"});
  }
}

// The choice, the native group width and the portable vector length, as the halves compute them.
TEST(Spmv, ChoiceAndGroupWidthFollowTheMeanRowLength) {
  using ksync::detail::spmv_choice;
  using ksync::detail::spmv_group_width;
  using ksync::detail::spmv_long_rows;
  using ksync::detail::spmv_vector_length;
  constexpr auto automatic = spmv_strategy::automatic;
  constexpr auto native = strategy_half::native;
  constexpr auto portable = strategy_half::portable;
  static_assert(spmv_long_rows(native) == 8 && spmv_long_rows(portable) == 16);
  for (const auto half : {native, portable}) {
    EXPECT_EQ(spmv_choice(automatic, half, false, 10, std::int64_t{10} * 256), spmv_strategy::row_per_thread);
    EXPECT_EQ(spmv_choice(automatic, half, true, 10, std::int64_t{10} * 5), spmv_strategy::row_per_thread);
    EXPECT_EQ(spmv_choice(automatic, half, true, 10, 10 * spmv_long_rows(half) - 10), spmv_strategy::row_per_thread);
    EXPECT_EQ(spmv_choice(automatic, half, true, 10, 10 * spmv_long_rows(half)), spmv_strategy::lanes_per_row);
    EXPECT_EQ(spmv_choice(spmv_strategy::lanes_per_row, half, false, 10, 10), spmv_strategy::lanes_per_row);
  }
  // Native: a quarter of the mean row length, rounded down to a power of two, 2..32.
  static_assert(spmv_group_width(0, 0) == 2 && spmv_group_width(10, 80) == 2 && spmv_group_width(10, 120) == 2);
  static_assert(spmv_group_width(10, 160) == 4 && spmv_group_width(10, 240) == 4 && spmv_group_width(10, 320) == 8);
  static_assert(spmv_group_width(10, 640) == 16 && spmv_group_width(10, 1280) == 32 &&
                spmv_group_width(1, 100000) == 32);
  // Portable: an eighth of the mean row length, rounded down to a power of two, 4..32.
  static_assert(spmv_vector_length(0, 0) == 4 && spmv_vector_length(10, 50) == 4 && spmv_vector_length(10, 630) == 4);
  static_assert(spmv_vector_length(10, 640) == 8 && spmv_vector_length(10, 1270) == 8 &&
                spmv_vector_length(10, 1280) == 16);
  static_assert(spmv_vector_length(10, 2560) == 32 && spmv_vector_length(1, 100000) == 32);
}

TEST(SpmvArguments, ExtentsOverlapAndUnknownStrategiesAreRefused) {
  const exec_space exec;
  const csr_matrix a(exec, with_empty_rows<double, std::int32_t>(6, 6));
  const csr_matrix wide(exec, with_empty_rows<double, std::int32_t>(4, 6));
  const Kokkos::View<double*> x("x", 6);
  const Kokkos::View<double*> y("y", 6);
  const auto refused = [&](auto&& call, const std::string& expected) { return refuses(call, expected); };
  EXPECT_TRUE(refused([&] { spmv(exec, a, Kokkos::View<double*>("x5", 5), y); },
                      "ksync::spmv: x.extent(0) = 5 but a has 6 columns"));
  EXPECT_TRUE(refused([&] { spmv(exec, wide, x, y); }, "ksync::spmv: y.extent(0) = 6 but a has 4 rows"));
  EXPECT_TRUE(refused([&] { spmv(exec, a, x, x); }, "ksync::spmv: y overlaps x"));
  const Kokkos::View<double*> z("z", 10);
  EXPECT_TRUE(
      refused([&] { spmv(exec, wide, Kokkos::subview(z, std::pair(0, 6)), Kokkos::subview(z, std::pair(5, 9))); },
              "ksync::spmv: y overlaps x"));
  std::ostringstream listed;
  listed << names_of_half<spmv_strategy>{strategy_half::portable};
  EXPECT_EQ(listed.str(), "automatic, row_per_thread, lanes_per_row");
  EXPECT_TRUE(refused([&] { spmv(exec, a, x, y, static_cast<spmv_strategy>(3)); },
                      "ksync::spmv: strategy = 3 is not a spmv_strategy (" + listed.str() + ")"));
  // Neither refusal touched y; disjoint halves of one View are taken.
  Kokkos::deep_copy(y, 7.0);
  EXPECT_THROW(spmv(exec, a, x, y, static_cast<spmv_strategy>(3)), std::invalid_argument);
  EXPECT_EQ(to_host(y), std::vector<double>(6, 7.0));
  EXPECT_NO_THROW(spmv(exec, wide, Kokkos::subview(z, std::pair(0, 6)), Kokkos::subview(z, std::pair(6, 10))));
}

}  // namespace
}  // namespace ksync::test
