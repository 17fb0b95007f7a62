// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The bridge's refusals (strided Views, clusters where they cannot run), its reach past 2^32 elements and
// instances on another GPU; every strategy and value type against the reference is in bridge_typed_test.cpp.
// Needs the CUDA backend and a GPU (two for the instance on another GPU); skipped elsewhere.
#include "support/bridge.hpp"
#include "support/functors.hpp"
#include "support/gpu.hpp"
#include "support/kokkos.hpp"
#include "support/reference.hpp"
#include "support/types.hpp"

#include <ksync/ksync.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using ksync::reduce_op;
using ksync::reduce_strategy;

// Where clusters cannot run, the cluster strategy reached through Kokkos is refused as the native call is.
TEST(BridgeArgumentsGpu, ClusterIsRefusedNamingTheDeviceWhereClustersCannotRun) {
  KSYNC_REQUIRE_BRIDGE();
  const auto& support = ksync::test::cluster_support_here();
  if (support.available) GTEST_SKIP() << "ksync-skip: clusters run here; BridgeGpu runs the strategy";
  const Kokkos::View<float*> data("ksync::test::data", 1000);
  try {
    (void)ksync::reduce(Exec{}, data, reduce_op::sum, reduce_strategy::cluster);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find(support.reason), std::string::npos) << error.what();
  }
}

TEST(BridgeArgumentsGpu, StridedViewsAreRefusedByNativeStrategies) {
  KSYNC_REQUIRE_BRIDGE();
  const Kokkos::View<float**, Kokkos::LayoutLeft> matrix("ksync::test::matrix", 2, 100);
  const auto row = Kokkos::subview(matrix, 0, Kokkos::ALL);  // stride 2
  try {
    (void)ksync::reduce(Exec{}, row, reduce_op::sum, reduce_strategy::last_block);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "ksync::reduce: data has stride 2; native strategies need contiguous Views");
  }
  EXPECT_EQ(ksync::reduce(Exec{}, row, reduce_op::sum, reduce_strategy::tuned), 0.0f);
}

// A Kokkos View of more than 2^32 int32 (16 GiB): every strategy reaches the elements past 2^32.
TEST(BridgeLargeGpu, IndicesBeyondTwoToThe32AreReachedByEveryStrategy) {
  KSYNC_REQUIRE_BRIDGE();
  if (std::getenv("KSYNC_TEST_MAX_SIZE") != nullptr) GTEST_SKIP() << "ksync-skip: too large under a sanitizer";
  const std::size_t n = (std::size_t{1} << 32) + 3;
  const Exec exec;
  const Kokkos::View<std::int32_t*> data("ksync::test::large", n);  // zero-initialized
  Kokkos::deep_copy(Kokkos::subview(data, 0), 1);
  Kokkos::deep_copy(Kokkos::subview(data, (std::size_t{1} << 32) - 1), -4);
  Kokkos::deep_copy(Kokkos::subview(data, n - 2), 7);
  Kokkos::deep_copy(Kokkos::subview(data, n - 1), 5);
  for (const auto strategy : ksync::all_reduce_strategies) {
    if (ksync::test::refused_here(strategy)) continue;
    SCOPED_TRACE(ksync::to_string(strategy));
    EXPECT_EQ(ksync::reduce(exec, data, reduce_op::sum, strategy), 9);
    EXPECT_EQ(ksync::reduce(exec, data, reduce_op::max, strategy), 7);
    EXPECT_EQ(ksync::reduce(exec, data, reduce_op::min, strategy), -4);
  }
}

#if KSYNC_NATIVE_BRIDGE
// Adds the complex number (1, 2) to bins(i % bins.extent(0)) through Kokkos' atomics, which take a lock for a
// Kokkos::complex<double>.
struct AddToComplexBins {
  Kokkos::View<Kokkos::complex<double>*> bins;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    Kokkos::atomic_add(&bins(i % static_cast<std::int64_t>(bins.extent(0))), Kokkos::complex<double>(1.0, 2.0));
  }
};
#endif

// A functor's lock-based atomics work in the native kernel that `automatic` runs, in a process (CTest runs
// each test alone) where this translation unit launches no Kokkos kernel before it: the bridge fills the
// unit's pointer to the lock array itself, as Kokkos does before its own launches.
TEST(BridgeAtomicsGpu, LockBasedAtomicsInAFunctorWorkInTheNativeKernel) {
  KSYNC_REQUIRE_BRIDGE();
#if KSYNC_NATIVE_BRIDGE
  const Kokkos::Cuda exec;
  // Few indices over many bins: the test is about the lock array, not contention. Its first version (a million
  // indices, four bins) never finished within the 100 s a test was given on an H100 (2026-12-07, ctest --timeout).
  constexpr std::int64_t bin_count = 64;
  const Kokkos::View<Kokkos::complex<double>*> bins(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ksync::test::bins"), bin_count);
  ASSERT_EQ(cudaMemset(bins.data(), 0, bin_count * sizeof(Kokkos::complex<double>)), cudaSuccess);  // no Kokkos kernel
  const std::int64_t n = 10'007;
  ksync::parallel_for(exec, n, AddToComplexBins{bins});
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bins);
  for (std::int64_t b = 0; b < bin_count; ++b) {
    // the indices i < n with i % bin_count == b
    const auto expected = static_cast<double>((n - b + bin_count - 1) / bin_count);
    EXPECT_EQ(host(b).real(), expected) << "bin " << b;
    EXPECT_EQ(host(b).imag(), 2 * expected) << "bin " << b;
  }
#endif
}

#if KSYNC_NATIVE_BRIDGE
// counts(i) += 1: every index once per call.
struct AddOne {
  Kokkos::View<std::int32_t*> counts;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { counts(i) += 1; }
};
#endif

// A Kokkos::Cuda instance on another GPU than the calling thread's current one, as Kokkos allows: the native
// kernels (what `automatic` runs here, and a native strategy named) run on the instance's device, as Kokkos'
// own kernels do, and the caller's current device is the same after each call.
TEST(BridgeDevicesGpu, AnInstanceOnAnotherGpuRunsThereAndLeavesTheCurrentDevice) {
  KSYNC_REQUIRE_BRIDGE();
  KSYNC_REQUIRE_GPUS(2);
#if KSYNC_NATIVE_BRIDGE
  int current = 0;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  const int other = current == 0 ? 1 : 0;
  cudaStream_t stream = nullptr;
  {
    const ksync::cuda::device_guard on(other);
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  }
  {
    const Kokkos::Cuda exec(stream);
    ASSERT_EQ(exec.cuda_device(), other);
    const std::int64_t n = 1'000'003;
    const Kokkos::View<std::int32_t*> counts(Kokkos::view_alloc(exec, "ksync::test::counts_on_other_gpu"), n);
    exec.fence("ksync::test::allocated");
    const auto current_after = [] {
      int device = -1;
      EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
      return device;
    };
    ASSERT_EQ(cudaSetDevice(current), cudaSuccess);  // Kokkos' constructor and allocation may have switched
    ksync::parallel_for(exec, n, AddOne{counts});
    EXPECT_EQ(current_after(), current);
    ksync::parallel_for(exec, n, AddOne{counts}, ksync::index_strategy::block_batched);
    EXPECT_EQ(current_after(), current);
    EXPECT_EQ(ksync::reduce(exec, counts), 2 * n);
    EXPECT_EQ(current_after(), current);
    EXPECT_EQ(ksync::reduce(exec, counts, reduce_op::sum, reduce_strategy::two_pass), 2 * n);
    EXPECT_EQ(current_after(), current);
  }
  ASSERT_EQ(cudaSetDevice(current), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
#endif
}

}  // namespace
