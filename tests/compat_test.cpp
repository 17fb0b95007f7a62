// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The compat layer gives the same answers on every supported Kokkos version.
#include <ksync/compat.hpp>

#include <gtest/gtest.h>

#include <cstddef>

namespace {

// A functor, not a lambda: nvcc rejects extended lambdas inside GoogleTest's private TestBody().
struct CountIndices {
  KOKKOS_FUNCTION void operator()(int /*index*/, int& count) const { count += 1; }
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

}  // namespace
