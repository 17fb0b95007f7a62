// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Tests of the bridge (native strategies reached through Kokkos) need Kokkos' CUDA backend, the native half
// and a GPU; elsewhere they skip (reported as skipped).
#pragma once

#include "gpu.hpp"

#include <ksync/ksync.hpp>

#define KSYNC_REQUIRE_BRIDGE()                                                                 \
  do {                                                                                         \
    KSYNC_REQUIRE_GPU();                                                                       \
    if (!ksync::has_native_bridge<Kokkos::DefaultExecutionSpace>)                              \
      GTEST_SKIP() << "ksync-skip: the bridge needs Kokkos' CUDA backend and the native half"; \
  } while (false)
