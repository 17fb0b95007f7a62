// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The portable_reduce example of docs/architecture.md, applied to a copy of the headers (CMakeLists.txt
// here): reduce_strategy::single_team, one file and one row. Everything that reads the rows picks it up —
// names, parsing, the list of portable strategies, the argument checks — and ksync::reduce runs it on
// every backend, against a host reference.
#include "../support/kokkos.hpp"
#include "../support/reference.hpp"

#include <ksync/reduce.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using ksync::reduce_op;
using ksync::reduce_strategy;

TEST(StrategyExample, TheRowsNameTheNewPortableStrategy) {
  EXPECT_EQ(ksync::to_string(reduce_strategy::single_team), std::string("single_team"));
  EXPECT_EQ(ksync::reduce_strategy_from_string("single_team"), reduce_strategy::single_team);
  EXPECT_TRUE(ksync::is_known(reduce_strategy::single_team));
  EXPECT_FALSE(ksync::is_native(reduce_strategy::single_team));
  const auto portable = ksync::ids_of_half<reduce_strategy>(ksync::strategy_half::portable);
  EXPECT_NE(std::ranges::find(portable, reduce_strategy::single_team), portable.end());
}

TEST(StrategyExample, TheNewPortableStrategyReducesAsTheReference) {
  const Kokkos::DefaultExecutionSpace exec;
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{257}, std::size_t{100'003}}) {
    const auto host = ksync::test::exact_reduction_input<std::int64_t>(n, 7u);
    const auto data = ksync::test::to_device(host);
    for (const reduce_op op : {reduce_op::sum, reduce_op::min, reduce_op::max}) {
      const std::int64_t result = ksync::reduce(exec, data, op, reduce_strategy::single_team);
      EXPECT_EQ(result, ksync::test::reduction_reference(host, op)) << "n = " << n << ", op = " << to_string(op);
    }
  }
}

}  // namespace
