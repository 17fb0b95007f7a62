// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::segment_reduce and ksync::segment_predicates (portable) against host references.
#include "support/kokkos.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

#include <ksync/predicates.hpp>
#include <ksync/segment_reduce.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <stdexcept>

namespace {

using ksync::test::to_device;
using ksync::test::to_host;

constexpr std::array<ksync::team_reduce_form, 4> forms{
    ksync::team_reduce_form::team_reduce, ksync::team_reduce_form::team_thread_range,
    ksync::team_reduce_form::team_vector_range, ksync::team_reduce_form::thread_vector_range};
constexpr std::array<ksync::reduce_op, 3> ops{ksync::reduce_op::sum, ksync::reduce_op::min, ksync::reduce_op::max};

KSYNC_TYPED_SUITE(SegmentReduce, ksync::test::value_types);

TYPED_TEST(SegmentReduce, EveryFormAndOperatorMatchesTheReference) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  for (const auto n : ksync::test::boundary_sizes) {
    if (!ksync::test::size_enabled(n)) continue;
    const auto host = ksync::test::signed_integers<T>(n, 7u + static_cast<std::uint32_t>(n), 1000);
    const auto data = to_device(host);
    for (const int segment : ksync::test::block_sizes) {
      if (n > 100'000 && segment != 256) continue;
      for (const auto op : ops) {
        const auto expected = ksync::test::segment_reduce_reference(host, segment, op);
        for (const auto form : forms) {
          SCOPED_TRACE(::testing::Message() << "n = " << n << ", segment = " << segment << ", op = "
                                            << ksync::to_string(op) << ", form = " << ksync::to_string(form));
          const Kokkos::View<T*> out("ksync::test::out", expected.size());
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
  try {
    ksync::segment_reduce(Kokkos::DefaultExecutionSpace{}, data, 32, ksync::reduce_op::sum,
                          ksync::team_reduce_form::team_reduce, out);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()),
              "ksync::segment_reduce: out.extent(0) = 3 but 100 elements in segments of 32 make 4");
  }
  EXPECT_THROW(ksync::segment_reduce(Kokkos::DefaultExecutionSpace{}, data, 0, ksync::reduce_op::sum,
                                     ksync::team_reduce_form::team_reduce, out),
               std::invalid_argument);
}

TEST(SegmentPredicates, CountAllAnyMatchTheReference) {
  const Kokkos::DefaultExecutionSpace exec;
  for (const int segment : {1, 17, 32, 96, 100, 128, 256, 1024}) {
    for (const auto n : ksync::test::boundary_sizes) {
      if (!ksync::test::size_enabled(n) || (n > 100'000 && segment != 256)) continue;
      SCOPED_TRACE(::testing::Message() << "segment = " << segment << ", n = " << n);
      const auto flags = ksync::test::mixed_flags(n, segment, 5u + static_cast<std::uint32_t>(n));
      const auto expected = ksync::test::segment_predicates_reference(flags, segment);
      const Kokkos::View<ksync::predicate_summary*> out("ksync::test::summaries", expected.size());
      ksync::segment_predicates(exec, to_device(flags), segment, out);
      EXPECT_EQ(to_host(out), expected);
    }
  }
}

}  // namespace
