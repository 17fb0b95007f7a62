// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::segment_predicates (portable) against a host reference.
#include "support/errors.hpp"
#include "support/kokkos.hpp"
#include "support/reference.hpp"

#include <ksync/predicates.hpp>

#include <gtest/gtest.h>

#include <cstdint>

namespace ksync::test {
namespace {

// Both implementations where the bridge exists (native: __syncthreads_count / _and / _or).
TEST(SegmentPredicates, CountAllAnyMatchTheReference) {
  const Kokkos::DefaultExecutionSpace exec;
  for (const auto how : reachable_implementations<Kokkos::DefaultExecutionSpace>()) {
    for (const int segment : {1, 17, 32, 96, 100, 128, 256, 1024}) {
      for (const auto n : boundary_sizes) {
        if (!size_enabled(n) || (n > 100'000 && segment != 256)) continue;
        SCOPED_TRACE(::testing::Message()
                     << "how = " << ksync::to_string(how) << ", segment = " << segment << ", n = " << n);
        const auto flags = mixed_flags(n, segment, 5u + static_cast<std::uint32_t>(n));
        const auto expected = segment_predicates_reference(flags, segment);
        const Kokkos::View<ksync::predicate_summary*> out("summaries", expected.size());
        ksync::segment_predicates(exec, to_device(flags), segment, out, how);
        EXPECT_EQ(to_host(out), expected);
      }
    }
  }
}

TEST(SegmentPredicatesArguments, TheNativeImplementationIsRefusedWhereTheBridgeDoesNotExist) {
  KSYNC_SKIP_WHERE_THE_BRIDGE_EXISTS();
  using Exec = Kokkos::DefaultExecutionSpace;
  const Kokkos::View<std::int32_t*> flags("flags", 64);
  const Kokkos::View<ksync::predicate_summary*> out("out", 2);
  const auto refused = [&](ksync::implementation how, const char* expected) {
    return refuses([&] { ksync::segment_predicates(Exec{}, flags, 32, out, how); }, expected);
  };
  EXPECT_TRUE(refused(ksync::implementation::native, "ksync::segment_predicates: how = native runs ksync::cuda's"));
  EXPECT_TRUE(refused(static_cast<ksync::implementation>(2), "how = 2 is not a ksync::implementation"));
}

}  // namespace
}  // namespace ksync::test
