// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Native fault tests: what ksync::cuda holds (bytes and handles), and the two injection loops that fail an
// operation's k-th allocation or k-th checked CUDA call for every k until it succeeds, checking after each
// failure that the error names what failed and that nothing was kept.
#pragma once

#include <ksync/cuda/allocation.hpp>
#include <ksync/cuda/error.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <ostream>
#include <regex>
#include <string>

namespace ksync::test {

// Device and pinned bytes, streams, events and executable graphs ksync::cuda holds.
struct held_resources {
  std::size_t device_bytes = 0;
  std::size_t pinned_bytes = 0;
  std::size_t streams = 0;
  std::size_t events = 0;
  std::size_t graphs = 0;

  [[nodiscard]] static held_resources now() {
    using ksync::cuda::handle_kind;
    using ksync::cuda::memory_kind;
    return {.device_bytes = ksync::cuda::live_bytes(memory_kind::device),
            .pinned_bytes = ksync::cuda::live_bytes(memory_kind::pinned),
            .streams = ksync::cuda::live_handles(handle_kind::stream),
            .events = ksync::cuda::live_handles(handle_kind::event),
            .graphs = ksync::cuda::live_handles(handle_kind::graph)};
  }
  friend bool operator==(const held_resources&, const held_resources&) = default;
  friend std::ostream& operator<<(std::ostream& out, const held_resources& held) {
    return out << held.device_bytes << " device bytes, " << held.pinned_bytes << " pinned bytes, " << held.streams
               << " streams, " << held.events << " events, " << held.graphs << " graphs";
  }
};

// The loop both injections share: for k = 1, 2, ... arms `fail_after(k)`, runs work(), and stops once work()
// gets through (it made fewer than k such calls: each has failed once). A failure must throw `Error`, which
// check_error(error) inspects; then the injection is disarmed, `after_each(k)` runs, and what ksync::cuda
// holds must be what it held before. Returns the failures seen.
template <class Error, class Work, class CheckError, class AfterEach>
int fail_each_call_in_turn(void (*fail_after)(int), int most, Work&& work, CheckError&& check_error,
                           AfterEach&& after_each) {
  int failures = 0;
  for (int k = 1; k < most; ++k) {
    const held_resources before = held_resources::now();
    fail_after(k);
    try {
      work();
      fail_after(0);
      break;
    } catch (const Error& error) {
      ++failures;
      check_error(error);
    }
    fail_after(0);
    after_each(k, before);
  }
  return failures;
}

// Fails the k-th allocation of `allocating()` for every k until it succeeds: each failure must name `who` and
// the bytes, free everything taken before it, and leave no CUDA error behind. Returns the failures seen.
template <class Allocating>
int expect_every_allocation_failure_is_clean(Allocating&& allocating, const std::string& who) {
  return fail_each_call_in_turn<ksync::cuda::allocation_error>(
      &ksync::cuda::fail_allocation_after, 64, allocating,
      [&](const ksync::cuda::allocation_error& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find(who + ": allocating " + std::to_string(error.bytes()) + " bytes of "), std::string::npos)
            << message;
        EXPECT_EQ(error.code(), cudaErrorMemoryAllocation);
      },
      [](int k, const held_resources& before) {
        EXPECT_EQ(held_resources::now(), before) << "after failing allocation " << k;
        EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the failure was left for a later launch check";
      });
}

// Fails the k-th checked CUDA call of `work()` for every k until work() gets through: each failure must
// throw cuda_error naming the call and its file:line, hold no more than before it, and leave ksync usable:
// `after_failure()` runs (without failures) after each one. Returns the failures seen.
template <class Work, class AfterFailure>
int expect_every_cuda_failure_is_clean(Work&& work, AfterFailure&& after_failure) {
  const std::regex names_call_and_place(R"(failed: cudaErrorLaunchFailure \(.*\) at .+:[0-9]+$)");
  return fail_each_call_in_turn<ksync::cuda::cuda_error>(
      &ksync::cuda::fail_cuda_call_after, 2000, work,
      [&](const ksync::cuda::cuda_error& error) {
        EXPECT_EQ(error.code(), cudaErrorLaunchFailure);
        EXPECT_TRUE(std::regex_search(error.what(), names_call_and_place)) << error.what();
      },
      [&](int k, const held_resources& before) {
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // what was enqueued before the failure, done
        EXPECT_EQ(held_resources::now(), before) << "after failing checked CUDA call " << k;
        SCOPED_TRACE("after failing checked CUDA call " + std::to_string(k));
        after_failure();
      });
}

}  // namespace ksync::test
