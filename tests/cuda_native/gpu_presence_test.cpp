// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A GPU that the machine has is never reported as absent: GPU tests and the native benchmarks skip only
// where the GPUs are missing or hidden on purpose, and fail where the driver lists GPUs that the CUDA runtime
// cannot reach (a container or chroot without the driver's libraries, as tools/ksync-env is).
#include "../support/gpu.hpp"

#include <ksync/cuda/runtime.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace {

using ksync::cuda::gpu_presence;
using ksync::cuda::judge_gpu_presence;

TEST(GpuPresence, RunsWithEnoughGpusSkipsWithoutThemAndFailsWhenTheRuntimeMissesListedOnes) {
  // required, visible, listed by the driver, CUDA_VISIBLE_DEVICES set
  EXPECT_EQ(judge_gpu_presence(1, 1, 1, false), gpu_presence::run);
  EXPECT_EQ(judge_gpu_presence(2, 2, 8, true), gpu_presence::run);
  EXPECT_EQ(judge_gpu_presence(1, 0, 0, false), gpu_presence::skip);  // no GPU: CI
  EXPECT_EQ(judge_gpu_presence(2, 1, 1, false), gpu_presence::skip);  // a one-GPU machine, a two-GPU test
  EXPECT_EQ(judge_gpu_presence(1, 0, 1, true), gpu_presence::skip);   // hidden on purpose
  EXPECT_EQ(judge_gpu_presence(1, 0, 1, false), gpu_presence::fail);  // listed, unreachable
  EXPECT_EQ(judge_gpu_presence(2, 1, 2, false), gpu_presence::fail);
}

// On this machine, now: the CUDA runtime sees every GPU that the driver lists (unless CUDA_VISIBLE_DEVICES
// chooses). Runs everywhere; a machine without a driver lists none.
TEST(GpuPresence, TheRuntimeSeesEveryGpuTheDriverListsHere) {
  const int listed = ksync::cuda::driver_listed_gpu_count();
  const int visible = ksync::cuda::visible_device_count();
  std::printf("driver lists %d NVIDIA GPU(s); the CUDA runtime sees %d\n", listed, visible);
  if (std::getenv("CUDA_VISIBLE_DEVICES") != nullptr) GTEST_SKIP() << "ksync-skip: CUDA_VISIBLE_DEVICES chooses";
  EXPECT_GE(visible, listed) << "the driver lists GPUs this process cannot reach";
  EXPECT_NE(ksync::cuda::gpu_presence_here(1), gpu_presence::fail);
}

}  // namespace
