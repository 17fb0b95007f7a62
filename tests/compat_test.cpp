// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The compat layer gives the same answers on every supported Kokkos version.
#include <ksync/compat.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace {

// A functor, not a lambda: nvcc rejects extended lambdas inside GoogleTest's private TestBody().
struct CountIndices {
  KOKKOS_FUNCTION void operator()(int /*index*/, int& count) const { count += 1; }
};

// Three sums an index: the index, one, and `poison` at index 7 (0 elsewhere).
struct ThreeSums {
  double poison;
  KOKKOS_FUNCTION void operator()(std::int64_t i, double& indices, double& ones, double& poisoned) const {
    indices += static_cast<double>(i);
    ones += 1.0;
    poisoned += i == 7 ? poison : 0.0;
  }
};

// While it lives, the Kokkos Tools callback of every reduction labelled `label` throws (as a test's injected
// failure does: ksync's solvers must get it back, not std::terminate).
class ThrowAtReduction {
 public:
  explicit ThrowAtReduction(const char* label) {
    armed_label = label;
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(&begin);
  }
  ~ThrowAtReduction() { Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(nullptr); }
  ThrowAtReduction(const ThrowAtReduction&) = delete;
  ThrowAtReduction& operator=(const ThrowAtReduction&) = delete;

 private:
  static inline std::string armed_label;
  static void begin(const char* name, std::uint32_t /*device*/, std::uint64_t* /*kernel*/) {
    if (armed_label == name) throw std::runtime_error("thrown at " + armed_label);
  }
};

TEST(Compat, VersionIsInTheSupportedRange) {
  EXPECT_GE(ksync::compat::kokkos_version, 40600);
  EXPECT_LT(ksync::compat::kokkos_version, 60000);
}

TEST(Compat, ViewRankIsAValueForEveryRank) {
  static_assert(ksync::compat::view_rank<Kokkos::View<float>> == 0);
  static_assert(ksync::compat::view_rank<Kokkos::View<const double*>> == 1);
  static_assert(ksync::compat::view_rank<Kokkos::View<int**, Kokkos::HostSpace>> == 2);
  SUCCEED();
}

TEST(Compat, PartitionSpaceReturnsTheRequestedNumberOfUsableInstances) {
  const auto instances = ksync::compat::partition_space(Kokkos::DefaultExecutionSpace{}, 3);
  ASSERT_EQ(instances.size(), 3u);
  for (const auto& exec : instances) {
    int count = 0;
    Kokkos::parallel_reduce("ksync::test::partition_space",
                            Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(exec, 0, 10), CountIndices{}, count);
    EXPECT_EQ(count, 10);
  }
}

// More instances than the host space has threads (Kokkos 4.6 aborts where an OpenMP part gets none): the threads
// are shared out, and every instance runs its work.
TEST(Compat, PartitionSpaceGivesMoreInstancesThanThreads) {
  const Kokkos::DefaultHostExecutionSpace host;
  for (const int extra : {0, 2}) {
    const std::size_t count = static_cast<std::size_t>(host.concurrency()) + static_cast<std::size_t>(extra);
    const auto instances = ksync::compat::partition_space(host, count);
    ASSERT_EQ(instances.size(), count);
    for (const auto& exec : instances) {
      int seen = 0;
      Kokkos::parallel_reduce("ksync::test::partition_space_thin",
                              Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(exec, 0, 10), CountIndices{},
                              seen);
      EXPECT_EQ(seen, 10) << count << " instances";
    }
  }
}

TEST(Compat, ParallelReduceSumsGivesEverySumAndKeepsANaN) {
  using policy = Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  std::array<double, 3> sums{-1, -1, -1};
  ksync::compat::parallel_reduce_sums("ksync::test::three_sums", policy(0, 100),
                                      ThreeSums{std::numeric_limits<double>::quiet_NaN()}, sums);
  EXPECT_EQ(sums[0], 4950.0);
  EXPECT_EQ(sums[1], 100.0);
  EXPECT_TRUE(std::isnan(sums[2]));
  ksync::compat::parallel_reduce_sums("ksync::test::three_sums", policy(0, 0), ThreeSums{1.0}, sums);
  EXPECT_EQ(sums, (std::array<double, 3>{0, 0, 0})) << "an empty range sums to zeros";
}

// Kokkos 4.6's parallel_reduce with several results is noexcept: the same exception would end the process there.
TEST(Compat, ParallelReduceSumsLetsAnExceptionReachTheCaller) {
  using policy = Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  std::array<double, 3> sums{};
  const ThrowAtReduction thrower("ksync::test::three_sums_that_throw");
  EXPECT_THROW(
      ksync::compat::parallel_reduce_sums("ksync::test::three_sums_that_throw", policy(0, 10), ThreeSums{0.0}, sums),
      std::runtime_error);
}

}  // namespace
