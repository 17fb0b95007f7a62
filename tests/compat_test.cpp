// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The compat layer gives the same answers on every supported Kokkos version.
#include <ksync/compat.hpp>

#include <gtest/gtest.h>

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

}  // namespace
