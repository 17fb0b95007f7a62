// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::pipeline against the host reference on whatever backend Kokkos has, by every implementation it
// reaches (native through the bridge on Kokkos::Cuda): every stream count, both issue orders, tail chunks,
// pageable (HostSpace) and pinned (SharedHostPinnedSpace) host Views; the argument checks; a Kokkos call
// failing midway.
#include "support/errors.hpp"
#include "support/functors.hpp"
#include "support/kokkos.hpp"

#include <ksync/pipeline.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

using ksync::issue_order;
using ksync::test::TwiceAndOne;

template <class Space>
void check_every_shape(ksync::implementation how) {
  const Kokkos::DefaultExecutionSpace exec;
  for (const std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{300'007}}) {
    const Kokkos::View<float*, Space> in("in", n);
    for (std::size_t i = 0; i < n; ++i)
      in(i) = static_cast<float>(i % 1024) - 300.0f;
    for (const int streams : {1, 2, 4, 8}) {
      for (const std::size_t chunk : {std::size_t{1}, std::size_t{4099}, n}) {
        if (chunk > n || (chunk == 1 && n > 1000)) continue;
        for (const auto order : {issue_order::depth_first, issue_order::breadth_first}) {
          SCOPED_TRACE(std::string(ksync::to_string(how)) + ": n = " + std::to_string(n) + ", " +
                       std::to_string(streams) + " streams, chunk " + std::to_string(chunk) + ", " +
                       std::string(ksync::to_string(order)));
          const Kokkos::View<float*, Space> out("out", n);
          ksync::pipeline(exec, in, out, n, TwiceAndOne{},
                          {.chunk_elements = chunk, .streams = streams, .order = order}, how);
          std::size_t wrong = 0;
          for (std::size_t i = 0; i < n; ++i)
            wrong += out(i) != TwiceAndOne{}(in(i)) ? 1 : 0;
          EXPECT_EQ(wrong, 0u);
        }
      }
    }
  }
}

TEST(Pipeline, PageableHostViewsGiveTheReference) {
  for (const auto how : ksync::test::reachable_implementations<Kokkos::DefaultExecutionSpace>())
    check_every_shape<Kokkos::HostSpace>(how);
}

TEST(Pipeline, PinnedHostViewsGiveTheReference) {
  for (const auto how : ksync::test::reachable_implementations<Kokkos::DefaultExecutionSpace>())
    check_every_shape<Kokkos::SharedHostPinnedSpace>(how);
}

TEST(Pipeline, APlanRunsAgainOnNewData) {
  const Kokkos::DefaultExecutionSpace exec;
  const std::size_t n = 100'003;
  const Kokkos::View<float*, Kokkos::SharedHostPinnedSpace> in("in", n);
  const Kokkos::View<float*, Kokkos::SharedHostPinnedSpace> out("out", n);
  ksync::pipeline_plan<Kokkos::DefaultExecutionSpace, float> plan(exec, n, {.chunk_elements = 4096, .streams = 3});
  EXPECT_EQ(plan.size(), n);
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    for (std::size_t i = 0; i < n; ++i)
      in(i) = static_cast<float>((i + static_cast<std::size_t>(run) * 7) % 999);
    plan.run(in, out, TwiceAndOne{});
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
      wrong += out(i) != TwiceAndOne{}(in(i)) ? 1 : 0;
    EXPECT_EQ(wrong, 0u);
  }
}

TEST(Pipeline, NothingIsWrittenPastN) {
  const Kokkos::DefaultExecutionSpace exec;
  const std::size_t n = 10'007;
  const std::size_t spare = 64;
  const Kokkos::View<float*, Kokkos::SharedHostPinnedSpace> in("in", n + spare);
  const Kokkos::View<float*, Kokkos::SharedHostPinnedSpace> out("out", n + spare);
  for (std::size_t i = 0; i < n + spare; ++i)
    in(i) = static_cast<float>(i % 100);
  for (const auto how : ksync::test::reachable_implementations<Kokkos::DefaultExecutionSpace>()) {
    for (const auto order : {issue_order::depth_first, issue_order::breadth_first}) {
      SCOPED_TRACE(std::string(ksync::to_string(how)) + ", " + std::string(ksync::to_string(order)));
      // Poisoned before every run, so that no run passes on what an earlier one wrote.
      for (std::size_t i = 0; i < n + spare; ++i)
        out(i) = -7.0f;
      ksync::pipeline(exec, in, out, n, TwiceAndOne{}, {.chunk_elements = 1000, .streams = 3, .order = order}, how);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < n; ++i)
        wrong += out(i) != TwiceAndOne{}(in(i)) ? 1 : 0;
      EXPECT_EQ(wrong, 0u);
      for (std::size_t i = n; i < n + spare; ++i)
        EXPECT_EQ(out(i), -7.0f) << "at " << i;
    }
  }
}

TEST(Pipeline, BadArgumentsThrowNamingThem) {
  const Kokkos::DefaultExecutionSpace exec;
  const Kokkos::View<float*, Kokkos::HostSpace> in("in", 100);
  const Kokkos::View<float*, Kokkos::HostSpace> out("out", 100);
  const auto message = [&](std::size_t n, ksync::pipeline_config config) {
    return ksync::test::invalid_argument_message([&] { ksync::pipeline(exec, in, out, n, TwiceAndOne{}, config); });
  };
  EXPECT_NE(message(100, {.streams = 0}).find("config.streams = 0"), std::string::npos);
  EXPECT_NE(message(100, {.chunk_elements = 0}).find("config.chunk_elements = 0"), std::string::npos);
  EXPECT_NE(message(100, {.chunk_elements = 101}).find("exceeds n = 100"), std::string::npos);
  EXPECT_NE(message(101, {.chunk_elements = 10}).find("host_in holds 100"), std::string::npos);
  EXPECT_NE(message(100, {.chunk_elements = 10, .order = static_cast<issue_order>(5)})
                .find("config.order = 5 is not an issue_order"),
            std::string::npos);
}

// Kokkos Tools callbacks that make the k-th pipeline transform throw before it is issued, as a Kokkos call
// that fails midway would, and count the fences run() makes on its way out.
namespace failing_transform {
int transforms_before_failure = 0;
int transforms_seen = 0;
int fences_on_the_way_out = 0;
void begin_parallel_for(const char* label, std::uint32_t /*device*/, std::uint64_t* /*kernel*/) {
  if (std::string_view(label) != "ksync::pipeline::transform") return;
  if (transforms_seen++ == transforms_before_failure) throw std::runtime_error("an injected Kokkos failure");
}
void begin_fence(const char* label, std::uint32_t /*device*/, std::uint64_t* /*handle*/) {
  if (std::string_view(label) == "ksync::pipeline: chunks issued before a failure done") ++fences_on_the_way_out;
}
}  // namespace failing_transform

TEST(Pipeline, AFailureMidwayFencesEveryInstanceBeforeTheExceptionLeaves) {
  const Kokkos::DefaultExecutionSpace exec;
  constexpr std::size_t n = 10'000;
  constexpr int streams = 4;
  const Kokkos::View<float*, Kokkos::HostSpace> in("in", n);
  const Kokkos::View<float*, Kokkos::HostSpace> out("out", n);
  for (std::size_t i = 0; i < n; ++i)
    in(i) = static_cast<float>(i % 97);
  ksync::pipeline_plan<Kokkos::DefaultExecutionSpace, float> plan(
      exec, n, {.chunk_elements = 1000, .streams = streams, .order = issue_order::depth_first});
  failing_transform::transforms_before_failure = 3;
  failing_transform::transforms_seen = 0;
  failing_transform::fences_on_the_way_out = 0;
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(failing_transform::begin_parallel_for);
  Kokkos::Tools::Experimental::set_begin_fence_callback(failing_transform::begin_fence);
  std::string message;
  try {
    plan.run(in, out, TwiceAndOne{});
  } catch (const std::runtime_error& error) {
    message = error.what();
  }
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
  Kokkos::Tools::Experimental::set_begin_fence_callback(nullptr);
  EXPECT_EQ(message, "an injected Kokkos failure");
  EXPECT_EQ(failing_transform::fences_on_the_way_out, streams);
  // Depth first, chunk by chunk: the three chunks before the failure were copied back before run() left.
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < 3000; ++i)
    wrong += out(i) != TwiceAndOne{}(in(i)) ? 1 : 0;
  EXPECT_EQ(wrong, 0u);
  // The plan is usable afterwards.
  plan.run(in, out, TwiceAndOne{});
  for (std::size_t i = 0; i < n; ++i)
    wrong += out(i) != TwiceAndOne{}(in(i)) ? 1 : 0;
  EXPECT_EQ(wrong, 0u);
}

TEST(Pipeline, TheNativeImplementationIsRefusedWhereTheBridgeDoesNotExist) {
  KSYNC_SKIP_WHERE_THE_BRIDGE_EXISTS();
  using Exec = Kokkos::DefaultExecutionSpace;
  const Kokkos::View<float*, Kokkos::HostSpace> in("in", 100);
  const Kokkos::View<float*, Kokkos::HostSpace> out("out", 100);
  const std::string message = ksync::test::invalid_argument_message([&] {
    ksync::pipeline(Exec{}, in, out, 100, TwiceAndOne{}, {.chunk_elements = 10}, ksync::implementation::native);
  });
  EXPECT_NE(message.find("ksync::pipeline: how = native runs ksync::cuda's kernels"), std::string::npos) << message;
}

}  // namespace
