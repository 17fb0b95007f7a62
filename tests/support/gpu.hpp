// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GPU tests skip on a machine without a visible CUDA device. The message starts with "ksync-skip:", the
// token CTest's SKIP_REGULAR_EXPRESSION looks for (a plain word: gtest's "[  SKIPPED ]" needs escapes that
// gtest_discover_tests does not carry through every CMake version), so CTest reports them skipped.
// A machine whose driver lists the GPUs that the CUDA runtime cannot reach fails instead: a GPU that is
// there is never reported as absent (ksync::cuda::judge_gpu_presence).
#pragma once

#include <ksync/cg_types.hpp>
#include <ksync/cuda/device/cluster_support.hpp>
#include <ksync/cuda/runtime.hpp>
#include <ksync/types.hpp>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#define KSYNC_REQUIRE_GPU() KSYNC_REQUIRE_GPUS(1)

// A typed suite (as KSYNC_TYPED_SUITE, support/types.hpp) whose every test needs a GPU: each is skipped or
// failed in SetUp as KSYNC_REQUIRE_GPU() decides, before its body runs.
#define KSYNC_TYPED_GPU_SUITE(suite, ...) \
  template <class T>                      \
  class suite : public ::testing::Test {  \
   protected:                             \
    void SetUp() override {               \
      KSYNC_REQUIRE_GPU();                \
    }                                     \
  };                                      \
  TYPED_TEST_SUITE(suite, __VA_ARGS__)

// Runs the test when at least `count` CUDA GPUs are visible; skips (reported as skipped) when the machine
// has fewer; fails when the driver lists them but the CUDA runtime does not see them.
#define KSYNC_REQUIRE_GPUS(count)                                                                                    \
  do {                                                                                                               \
    switch (::ksync::cuda::gpu_presence_here(count)) {                                                               \
      case ::ksync::cuda::gpu_presence::run:                                                                         \
        break;                                                                                                       \
      case ::ksync::cuda::gpu_presence::skip:                                                                        \
        GTEST_SKIP() << "ksync-skip: needs " << (count) << " CUDA GPU(s); " << ::ksync::cuda::visible_device_count() \
                     << " visible";                                                                                  \
      case ::ksync::cuda::gpu_presence::fail:                                                                        \
        FAIL() << "the driver lists " << ::ksync::cuda::driver_listed_gpu_count()                                    \
               << " NVIDIA GPU(s) (/proc/driver/nvidia/gpus) but the CUDA runtime sees "                             \
               << ::ksync::cuda::visible_device_count()                                                              \
               << ": this process cannot reach a GPU the machine has (no driver library, or a driver older "         \
                  "than the runtime); not skipping";                                                                 \
    }                                                                                                                \
  } while (false)

namespace ksync::test {

// Whether ksync's cluster kernels run on the current device: an sm_90 device and sm_90 code in this build
// (ksync/cuda/device/cluster_support.hpp). Elsewhere reduce_strategy::cluster is refused, which
// ClusterRefusalGpu checks; loops over every strategy leave it out there.
inline const ksync::cuda::cluster_support& cluster_support_here() {
  static const ksync::cuda::cluster_support support = [] {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess)
      return ksync::cuda::cluster_support{.available = false, .reason = "no current device"};
    return ksync::cuda::query_cluster_support(device);
  }();
  return support;
}

// True for a strategy this device and build refuse (only cluster, where clusters cannot run).
inline bool refused_here(ksync::reduce_strategy strategy) {
  return strategy == ksync::reduce_strategy::cluster && !cluster_support_here().available;
}
// ... and for a CG form (only persistent_cluster, where clusters cannot run).
inline bool refused_here(ksync::cg_form form) {
  return form == ksync::cg_form::persistent_cluster && !cluster_support_here().available;
}

// Runs body(); a std::invalid_argument from it passes only where cluster_size is 16, the non-portable size a device
// may refuse (grid/cluster.cuh), and only with a message that names that size.
template <class Body>
void expect_runs_unless_cluster_16_is_refused(int cluster_size, Body&& body) {
  try {
    body();
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(cluster_size, 16) << error.what();
    EXPECT_NE(std::string(error.what()).find("cluster_size = 16"), std::string::npos) << error.what();
  }
}

}  // namespace ksync::test

// Skips (reported as skipped) where clusters cannot run, naming why.
#define KSYNC_REQUIRE_CLUSTERS()                                                           \
  do {                                                                                     \
    if (!::ksync::test::cluster_support_here().available)                                  \
      GTEST_SKIP() << "ksync-skip: clusters refused here (ClusterRefusalGpu checks how): " \
                   << ::ksync::test::cluster_support_here().reason;                        \
  } while (false)
