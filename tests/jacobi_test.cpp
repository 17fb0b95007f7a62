// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::jacobi (portable forms) against the host reference, bit for bit, on whatever backend Kokkos has.
#include "support/errors.hpp"
#include "support/kokkos.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

#include <ksync/jacobi.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ksync::iteration_form;

KSYNC_TYPED_SUITE(Jacobi, ksync::test::floating_types);

// The forms ksync::jacobi runs on the default execution space: the portable ones, and on Kokkos::Cuda with
// the native half every native form through the bridge (so all seven are compared with one reference).
std::vector<iteration_form> reachable_forms() {
  std::vector<iteration_form> forms;
  for (const auto form : ksync::all_iteration_forms) {
    if (!ksync::is_native(form) || ksync::detail::has_native_bridge<Kokkos::DefaultExecutionSpace>) {
      forms.push_back(form);
    }
  }
  return forms;
}

TYPED_TEST(Jacobi, EveryReachableFormMatchesTheReferenceBitForBit) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  for (const auto n : ksync::test::jacobi_sizes) {
    const auto start = ksync::test::jacobi_start<T>(n, 11u);
    for (const int phases : {0, 1, 2, 7, 64}) {
      const auto expected = ksync::test::jacobi_reference(start, phases);
      for (const auto form : reachable_forms()) {
        SCOPED_TRACE("n = " + std::to_string(n) + ", phases = " + std::to_string(phases) + ", " +
                     std::string(ksync::to_string(form)));
        const auto u = ksync::test::to_device(start);
        const Kokkos::View<T*> scratch("scratch", n);
        const auto result = ksync::jacobi(exec, u, scratch, phases, form);
        EXPECT_EQ(result.data(), phases % 2 == 0 ? u.data() : scratch.data());
        exec.fence();
        EXPECT_EQ(ksync::test::to_host(result), expected);
      }
    }
  }
}

TEST(Jacobi, RepeatedGraphCallsContinueFromTheLastState) {
  const Kokkos::DefaultExecutionSpace exec;
  const auto start = ksync::test::jacobi_start<float>(1000, 3u);
  const auto u = ksync::test::to_device(start);
  const Kokkos::View<float*> scratch("scratch", start.size());
  for (int call = 0; call < 3; ++call)
    (void)ksync::jacobi(exec, u, scratch, 4, iteration_form::kokkos_graph);  // the same graph, submitted again
  exec.fence();
  EXPECT_EQ(ksync::test::to_host(u), ksync::test::jacobi_reference(start, 12));

  const ksync::jacobi_graph graph(exec, u, scratch, 3);  // an odd count: the result lands in scratch
  EXPECT_EQ(graph.submit(exec).data(), scratch.data());
  exec.fence();
  EXPECT_EQ(ksync::test::to_host(scratch), ksync::test::jacobi_reference(start, 15));
}

TEST(Jacobi, BadArgumentsThrowNamingThem) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<float*> u("u", 10);
  const Kokkos::View<float*> shorter("shorter", 9);
  const auto message = [](auto&& call) { return ksync::test::invalid_argument_message(call); };
  EXPECT_NE(message([&] { (void)ksync::jacobi(exec, u, shorter, 1); }).find("scratch.extent(0) = 9"),
            std::string::npos);
  EXPECT_NE(message([&] { (void)ksync::jacobi(exec, u, u, 1); }).find("same View"), std::string::npos);
  EXPECT_NE(message([&] { (void)ksync::jacobi(exec, u, Kokkos::View<float*>("s", 10), -1); }).find("phases = -1"),
            std::string::npos);
  EXPECT_NE(message([&] {
              (void)ksync::jacobi(exec, u, Kokkos::View<float*>("s", 10), 1, static_cast<iteration_form>(99));
            }).find("form = 99 is not an iteration_form"),
            std::string::npos);
  if constexpr (!ksync::detail::has_native_bridge<Kokkos::DefaultExecutionSpace>) {
    EXPECT_NE(message([&] {
                (void)ksync::jacobi(exec, u, Kokkos::View<float*>("s", 10), 1, iteration_form::persistent_grid_sync);
              }).find("form = persistent_grid_sync"),
              std::string::npos);
  }
}

}  // namespace
