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

KSYNC_TYPED_SUITE(SegmentReduce, value_types);

// Every form this backend reaches: the portable ones, and tree and shuffle through the bridge on Kokkos::Cuda.
TYPED_TEST(SegmentReduce, EveryFormAndOperatorMatchesTheReference) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  const auto forms = reachable<Kokkos::DefaultExecutionSpace>(ksync::all_segment_forms);
  for_each_segment_reduce_case<T>(
      block_sizes, [](const std::vector<T>& host) { return to_device(host); },
      [&](const auto& data, std::size_t n, int segment, reduce_op op, const std::vector<T>& expected) {
        for (const auto form : forms) {
          SCOPED_TRACE(::testing::Message() << "n = " << n << ", segment = " << segment << ", op = "
                                            << ksync::to_string(op) << ", form = " << ksync::to_string(form));
          const Kokkos::View<T*> out("out", expected.size());
          ksync::segment_reduce(exec, data, segment, op, form, out);
          EXPECT_EQ(to_host(out), expected);
        }
      });
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
  KSYNC_SKIP_WHERE_THE_BRIDGE_EXISTS();
  using Exec = Kokkos::DefaultExecutionSpace;
  const Kokkos::View<float*> data("data", 64);
  const Kokkos::View<float*> out("out", 2);
  const auto refused = [&](ksync::segment_form form, const std::string& expected) {
    return refuses([&] { ksync::segment_reduce(Exec{}, data, 32, ksync::reduce_op::sum, form, out); }, expected);
  };
  for (const auto form : ksync::implementations_of_half<ksync::segment_form>(ksync::strategy_half::native)) {
    EXPECT_TRUE(refused(form, "ksync::segment_reduce: form = " + std::string(ksync::to_string(form)) +
                                  " runs ksync::cuda's kernels: it needs exec to be Kokkos::Cuda"));
  }
  EXPECT_TRUE(refused(static_cast<ksync::segment_form>(6), "form = 6 is not a segment_form"));
}

}  // namespace
}  // namespace ksync::test
