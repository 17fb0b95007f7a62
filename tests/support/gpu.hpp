// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GPU tests skip on a machine without a visible CUDA device. The message starts with "ksync-skip:", the
// token CTest's SKIP_REGULAR_EXPRESSION looks for (a plain word: gtest's "[  SKIPPED ]" needs escapes that
// gtest_discover_tests does not carry through every CMake version), so CTest reports them skipped.
#pragma once

#include <ksync/cuda/detail/runtime.hpp>

#include <gtest/gtest.h>

#define KSYNC_REQUIRE_GPU() KSYNC_REQUIRE_GPUS(1)

// Skips (reported as skipped) unless at least `count` CUDA GPUs are visible.
#define KSYNC_REQUIRE_GPUS(count)                                                                          \
  do {                                                                                                     \
    if (const int ksync_visible_ = ::ksync::cuda::visible_device_count(); ksync_visible_ < (count)) {      \
      GTEST_SKIP() << "ksync-skip: needs " << (count) << " CUDA GPU(s); " << ksync_visible_ << " visible"; \
    }                                                                                                      \
  } while (false)
