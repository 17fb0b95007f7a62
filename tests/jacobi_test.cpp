// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::jacobi (portable forms) against the host reference, bit for bit, on whatever backend Kokkos has.
#include "support/errors.hpp"
#include "support/kokkos.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

#include <ksync/jacobi.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using ksync::jacobi_form;

KSYNC_TYPED_SUITE(Jacobi, ksync::test::floating_types);

// The forms ksync::jacobi runs on the default execution space: the portable ones, and on Kokkos::Cuda with
// the native half every native form through the bridge (so all seven are compared with one reference).
std::vector<jacobi_form> reachable_forms() {
  std::vector<jacobi_form> forms;
  for (const auto form : ksync::all_jacobi_forms) {
    if (!ksync::is_native(form) || ksync::has_native_bridge<Kokkos::DefaultExecutionSpace>) {
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
    (void)ksync::jacobi(exec, u, scratch, 4, jacobi_form::kokkos_graph);  // the same graph, submitted again
  exec.fence();
  EXPECT_EQ(ksync::test::to_host(u), ksync::test::jacobi_reference(start, 12));

  const ksync::jacobi_graph graph(exec, u, scratch, 3);  // an odd count: the result lands in scratch
  EXPECT_EQ(graph.submit(exec).data(), scratch.data());
  exec.fence();
  EXPECT_EQ(ksync::test::to_host(scratch), ksync::test::jacobi_reference(start, 15));
}

// The kokkos_graph form keeps the graph of its last (u, scratch, phases, instance): each call below changes
// one of them after a call that built the graph, and must still give the reference's bits.
TEST(Jacobi, TheKeptGraphIsRebuiltForEachChangedInput) {
  using view = Kokkos::View<double*>;
  const Kokkos::DefaultExecutionSpace exec;
  const std::int64_t n = 300;
  const auto start = ksync::test::jacobi_start<double>(n, 5u);
  const auto other_start = ksync::test::jacobi_start<double>(n, 6u);
  const auto expect_reference = [&](const view& u, const view& scratch, int phases, const auto& on,
                                    const std::vector<double>& from) {
    Kokkos::deep_copy(u, ksync::test::to_device(from));
    const auto result = ksync::jacobi(on, u, scratch, phases, jacobi_form::kokkos_graph);
    on.fence();
    EXPECT_EQ(ksync::test::to_host(result), ksync::test::jacobi_reference(from, phases));
  };
  const view u("u", n);
  const view scratch("scratch", n);
  const view other_u("other_u", n);
  const view other_scratch("other_scratch", n);
  {
    SCOPED_TRACE("other u");
    expect_reference(u, scratch, 5, exec, start);
    expect_reference(other_u, scratch, 5, exec, other_start);
  }
  {
    SCOPED_TRACE("other scratch");
    expect_reference(u, scratch, 5, exec, start);
    expect_reference(u, other_scratch, 5, exec, other_start);
  }
  {
    SCOPED_TRACE("other phases");
    expect_reference(u, scratch, 5, exec, start);
    expect_reference(u, scratch, 8, exec, start);
  }
  {
    SCOPED_TRACE("other size");
    expect_reference(u, scratch, 5, exec, start);
    const auto shorter = ksync::test::jacobi_start<double>(n / 2, 7u);
    expect_reference(view("short_u", n / 2), view("short_scratch", n / 2), 5, exec, shorter);
  }
  {
    SCOPED_TRACE("another instance");
    expect_reference(u, scratch, 5, exec, start);
    expect_reference(u, scratch, 5, Kokkos::Experimental::partition_space(exec, 1)[0], other_start);
  }
  {
    SCOPED_TRACE("the same memory with another stride");
    using strided = Kokkos::View<double*, Kokkos::LayoutStride>;
    const view wide("wide", 2 * n);
    const view wide_scratch("wide_scratch", 2 * n);
    const strided dense(wide.data(), Kokkos::LayoutStride(n, 1));
    const strided dense_scratch(wide_scratch.data(), Kokkos::LayoutStride(n, 1));
    const strided every_other(wide.data(), Kokkos::LayoutStride(n, 2));
    const strided every_other_scratch(wide_scratch.data(), Kokkos::LayoutStride(n, 2));
    for (const auto& [on_u, on_scratch] :
         {std::pair{dense, dense_scratch}, std::pair{every_other, every_other_scratch}}) {
      Kokkos::deep_copy(wide, 0.0);
      Kokkos::deep_copy(on_u, ksync::test::to_device(start));
      const auto result = ksync::jacobi(exec, on_u, on_scratch, 5, jacobi_form::kokkos_graph);
      const view contiguous("contiguous", n);  // a strided View cannot travel to the host as it is
      Kokkos::deep_copy(contiguous, result);
      EXPECT_EQ(ksync::test::to_host(contiguous), ksync::test::jacobi_reference(start, 5));
    }
  }
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
              (void)ksync::jacobi(exec, u, Kokkos::View<float*>("s", 10), 1, static_cast<jacobi_form>(99));
            }).find("form = 99 is not an jacobi_form"),
            std::string::npos);
  if constexpr (!ksync::has_native_bridge<Kokkos::DefaultExecutionSpace>) {
    EXPECT_NE(message([&] {
                (void)ksync::jacobi(exec, u, Kokkos::View<float*>("s", 10), 1, jacobi_form::persistent_grid_sync);
              }).find("form = persistent_grid_sync"),
              std::string::npos);
  }
}

}  // namespace
