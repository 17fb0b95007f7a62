// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::segment_reduce (portable) against a host reference; segment_predicates is in predicates_test.cpp.
#include "support/errors.hpp"
#include "support/kokkos.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

#include <ksync/segment_reduce.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ksync::test {
namespace {

constexpr std::array<ksync::reduce_op, 3> ops{ksync::reduce_op::sum, ksync::reduce_op::min, ksync::reduce_op::max};

KSYNC_TYPED_SUITE(SegmentReduce, value_types);

// Every form this backend reaches: the portable ones, and tree and shuffle through the bridge on Kokkos::Cuda.
TYPED_TEST(SegmentReduce, EveryFormAndOperatorMatchesTheReference) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  const auto forms = reachable<Kokkos::DefaultExecutionSpace>(ksync::all_segment_forms);
  for (const auto n : boundary_sizes) {
    if (!size_enabled(n)) continue;
    const auto host = signed_integers<T>(n, 7u + static_cast<std::uint32_t>(n), 1000);
    const auto data = to_device(host);
    for (const int segment : block_sizes) {
      if (n > 100'000 && segment != 256) continue;
      for (const auto op : ops) {
        const auto expected = segment_reduce_reference(host, segment, op);
        for (const auto form : forms) {
          SCOPED_TRACE(::testing::Message() << "n = " << n << ", segment = " << segment << ", op = "
                                            << ksync::to_string(op) << ", form = " << ksync::to_string(form));
          const Kokkos::View<T*> out("out", expected.size());
          ksync::segment_reduce(exec, data, segment, op, form, out);
          EXPECT_EQ(to_host(out), expected);
        }
      }
    }
  }
}

TEST(SegmentReduceArguments, AWronglySizedOutputNamesTheExpectedCount) {
  const Kokkos::View<int*> data("data", 100);
  const Kokkos::View<int*> out("out", 3);
  EXPECT_TRUE(refuses(
      [&] {
        ksync::segment_reduce(Kokkos::DefaultExecutionSpace{}, data, 32, ksync::reduce_op::sum,
                              ksync::segment_form::team_reduce, out);
      },
      "ksync::segment_reduce: out.extent(0) = 3 but 100 elements in segments of 32 make 4"));
  EXPECT_THROW(ksync::segment_reduce(Kokkos::DefaultExecutionSpace{}, data, 0, ksync::reduce_op::sum,
                                     ksync::segment_form::team_reduce, out),
               std::invalid_argument);
}

TEST(SegmentReduceArguments, NativeFormsAreRefusedWhereTheBridgeDoesNotExist) {
  using Exec = Kokkos::DefaultExecutionSpace;
  if (ksync::has_native_bridge<Exec>) GTEST_SKIP() << "ksync-skip: the bridge exists on this backend";
  const Kokkos::View<float*> data("data", 64);
  const Kokkos::View<float*> out("out", 2);
  const auto refused = [&](ksync::segment_form form, const std::string& expected) {
    return refuses([&] { ksync::segment_reduce(Exec{}, data, 32, ksync::reduce_op::sum, form, out); }, expected);
  };
  for (const auto form : {ksync::segment_form::tree, ksync::segment_form::shuffle}) {
    EXPECT_TRUE(refused(form, "ksync::segment_reduce: form = " + std::string(ksync::to_string(form)) +
                                  " runs ksync::cuda's kernels: it needs exec to be Kokkos::Cuda"));
  }
  EXPECT_TRUE(refused(static_cast<ksync::segment_form>(6), "form = 6 is not a segment_form"));
}

}  // namespace
}  // namespace ksync::test
