// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::reduce, dot and transform_reduce (native) against a host reference, for every strategy,
// operator, value type and tuning knob. Suites named *Gpu need a device and skip without one; the argument
// checks run everywhere, since they fail before any CUDA call.
#include "../../support/errors.hpp"
#include "../../support/functors.hpp"
#include "../../support/gpu.hpp"
#include "../../support/reference.hpp"
#include "../../support/rounding.hpp"
#include "../../support/types.hpp"

#include <ksync/cuda/allocation.hpp>
#include <ksync/cuda/device/parallel_reduce.cuh>
#include <ksync/cuda/device/reduce.cuh>
#include <ksync/cuda/device/reduce.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/mailbox.hpp>
#include <ksync/cuda/stream.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace ksync::test {
namespace {

// Every strategy ksync::cuda::reduce takes, read from the rows (automatic and each native one).
const std::vector<reduce_strategy> native_strategies =
    ksync::ids_of_half<reduce_strategy>(ksync::strategy_half::native);

// The boundary sizes, plus sizes around one and four sweeps of a full grid over 16-byte packs (P threads
// = multiprocessors x 2048 at full occupancy) on this device.
std::vector<std::size_t> sizes_for_this_device() {
  std::vector<std::size_t> sizes(device_reduce_sizes.begin(), device_reduce_sizes.end());
  int device = 0;
  int multiprocessors = 0;
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device) == cudaSuccess) {
    const std::size_t threads = static_cast<std::size_t>(multiprocessors) * 2048;
    for (const std::size_t tile : {threads, 4 * threads, 16 * threads})
      for (const std::size_t n : {tile - 1, tile, tile + 1})
        sizes.push_back(n);
  }
  std::vector<std::size_t> enabled;
  for (const auto n : sizes)
    if (size_enabled(n)) enabled.push_back(n);
  return enabled;
}

KSYNC_TYPED_GPU_SUITE(NativeReduceGpu, value_types);

TYPED_TEST(NativeReduceGpu, EveryStrategyAndOperatorMatchesTheReference) {
  using T = TypeParam;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  cuda::device_buffer<T> result(1);
  for (const auto n : sizes_for_this_device()) {
    const auto host = exact_reduction_input<T>(n, 17u + static_cast<std::uint32_t>(n));
    const cuda::device_buffer<T> data(host);
    for (const auto op : all_reduce_ops) {
      const T expected = reduction_reference(host, op);
      for (const auto strategy : native_strategies) {
        if (refused_here(strategy)) continue;  // ClusterRefusalGpu checks the refusal
        SCOPED_TRACE(::testing::Message() << "n = " << n << ", op = " << ksync::to_string(op)
                                          << ", strategy = " << ksync::to_string(strategy));
        EXPECT_EQ(ksync::cuda::reduce(stream, data.data(), n, op, strategy), expected);
        result.copy_from({static_cast<T>(-12345)});  // poisoned
        ksync::cuda::reduce(stream, data.data(), n, op, strategy, result.data());
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        EXPECT_EQ(result.to_host().at(0), expected);
      }
    }
  }
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TYPED_TEST(NativeReduceGpu, DotTransformReduceAndMisalignedDataMatchTheReference) {
  using T = TypeParam;
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{4097},
                              std::size_t{1'000'003}, std::size_t{10'000'019}}) {
    if (!size_enabled(n)) continue;
    const auto x_host = exact_reduction_input<T>(n + 1, 3u);
    const auto y_host = zero_one_input<T>(n + 1, 5u);
    const cuda::device_buffer<T> x(x_host);
    const cuda::device_buffer<T> y(y_host);
    // Offset by one element: no 16-byte alignment, so the scalar path runs.
    const std::vector<T> x_tail(x_host.begin() + 1, x_host.end());
    const std::vector<T> y_head(y_host.begin(), y_host.end() - 1);
    for (const auto strategy : native_strategies) {
      if (refused_here(strategy)) continue;  // ClusterRefusalGpu checks the refusal
      SCOPED_TRACE(::testing::Message() << "n = " << n << ", strategy = " << ksync::to_string(strategy));
      const std::vector<T> x_head(x_host.begin(), x_host.end() - 1);
      EXPECT_EQ(ksync::cuda::dot(cudaStreamPerThread, x.data(), y.data(), n, strategy), dot_reference(x_head, y_head));
      EXPECT_EQ(ksync::cuda::dot(cudaStreamPerThread, x.data() + 1, y.data(), n, strategy),
                dot_reference(x_tail, y_head));
      for (const auto op : all_reduce_ops) {
        EXPECT_EQ(ksync::cuda::transform_reduce(cudaStreamPerThread, x.data() + 1, n, op, Bend{}, strategy),
                  reduction_reference(x_tail, op, Bend{}));
        EXPECT_EQ(ksync::cuda::reduce(cudaStreamPerThread, x.data() + 1, n, op, strategy),
                  reduction_reference(x_tail, op));
      }
    }
  }
}

TEST(NativeReduceTuningGpu, EveryBlockSizeItemCountOccupancyAndClusterSizeGivesTheSameResult) {
  KSYNC_REQUIRE_GPU();
  const std::size_t n = size_enabled(3'000'017) ? 3'000'017 : 65'537;
  const auto host = exact_reduction_input<float>(n, 11u);
  const cuda::device_buffer<float> data(host);
  const float expected = reduction_reference(host, reduce_op::sum);
  for (const int block_size : {128, 256, 512}) {
    for (const int items : {0, 1, 64}) {
      for (const int blocks_per_sm : {0, 1, 2}) {
        for (const int cluster_size : {1, 2, 4, 8, 16}) {
          const ksync::cuda::reduce_tuning tuning{.block_size = block_size,
                                                  .items_per_thread = items,
                                                  .blocks_per_sm = blocks_per_sm,
                                                  .cluster_size = cluster_size};
          for (const auto strategy : native_strategies) {
            if (refused_here(strategy)) continue;  // ClusterRefusalGpu checks the refusal
            if (strategy != reduce_strategy::cluster && cluster_size != 8) continue;
            SCOPED_TRACE(::testing::Message()
                         << "block_size " << block_size << ", items " << items << ", blocks/SM " << blocks_per_sm
                         << ", cluster " << cluster_size << ", " << ksync::to_string(strategy));
            // Only a 16-block cluster of large blocks may be refused by the device; nothing else.
            ksync::test::expect_runs_unless_cluster_16_is_refused(cluster_size, [&] {
              EXPECT_EQ(ksync::cuda::reduce(cudaStreamPerThread, data.data(), n, reduce_op::sum, strategy, tuning),
                        expected);
            });
          }
        }
      }
    }
  }
}

// Single-pass strategies leave their ticket at zero for the next call, and two streams keep separate
// workspaces: interleaved calls on two streams, many times over, all correct.
TEST(NativeReduceConcurrencyGpu, RepeatedCallsOnTwoStreamsStayCorrect) {
  KSYNC_REQUIRE_GPU();
  cudaStream_t streams[2] = {nullptr, nullptr};
  for (auto& stream : streams)
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  const bool large = size_enabled(3'000'017);
  const auto first_host = exact_reduction_input<std::int64_t>(large ? 2'000'003 : 50'021, 1u);
  const auto second_host = exact_reduction_input<std::int64_t>(large ? 3'000'017 : 60'013, 2u);
  const cuda::device_buffer<std::int64_t> first(first_host);
  const cuda::device_buffer<std::int64_t> second(second_host);
  constexpr int rounds = 20;
  cuda::device_buffer<std::int64_t> results(2 * rounds);
  for (const auto strategy : native_strategies) {
    if (refused_here(strategy)) continue;  // ClusterRefusalGpu checks the refusal
    SCOPED_TRACE(ksync::to_string(strategy));
    for (int round = 0; round < rounds; ++round) {
      ksync::cuda::reduce(streams[0], first.data(), first.size(), reduce_op::sum, strategy, results.data() + 2 * round);
      ksync::cuda::reduce(streams[1], second.data(), second.size(), reduce_op::sum, strategy,
                          results.data() + 2 * round + 1);
    }
    for (auto& stream : streams)
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    const auto values = results.to_host();
    for (int round = 0; round < rounds; ++round) {
      EXPECT_EQ(values[2 * round], reduction_reference(first_host, reduce_op::sum));
      EXPECT_EQ(values[2 * round + 1], reduction_reference(second_host, reduce_op::sum));
    }
  }
  for (auto& stream : streams)
    ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// Holds a stream for `cycles` GPU clock cycles.
__global__ void spin_for(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// CUDA gives a destroyed stream's handle to the next stream made, even while the destroyed stream's work
// still runs. A workspace keyed on the handle would give the new stream the old one's ticket and partials while
// the old stream's reduction is still queued: the new stream must make a workspace of its own (the bytes held
// grow, the check that caught a shared workspace in the broken run of docs/results/2026-12-06-h100-78de407), and
// both results must hold. Both reductions wait for one event, recorded on a third stream after a spin, so they
// are released together and run at once: reductions sharing a ticket and partials would then mix.
TEST(NativeReduceConcurrencyGpu, AStreamGivenADestroyedStreamsHandleGetsAWorkspaceOfItsOwn) {
  KSYNC_REQUIRE_GPU();
  const auto first_host = exact_reduction_input<std::int64_t>(1'000'003, 3u);
  const auto second_host = exact_reduction_input<std::int64_t>(1'000'033, 4u);
  const cuda::device_buffer<std::int64_t> first(first_host);
  const cuda::device_buffer<std::int64_t> second(second_host);
  cuda::device_buffer<std::int64_t> results(2);
  constexpr long long spin_cycles = 50'000'000;  // some tens of milliseconds at the H100's and H200's clocks
  cudaStream_t gate = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&gate, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t released = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&released, cudaEventDisableTiming), cudaSuccess);
  int handles_given_again = 0;
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    spin_for<<<1, 1, 0, gate>>>(spin_cycles);
    ASSERT_EQ(cudaEventRecord(released, gate), cudaSuccess);
    cudaStream_t destroyed = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&destroyed, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(destroyed, released, 0), cudaSuccess);
    ksync::cuda::reduce(destroyed, first.data(), first.size(), reduce_op::sum, reduce_strategy::last_block,
                        results.data());
    ASSERT_EQ(cudaStreamDestroy(destroyed), cudaSuccess);  // its wait and reduction are still queued
    const std::size_t held = cuda::live_bytes(cuda::memory_kind::device);
    cudaStream_t made = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&made, cudaStreamNonBlocking), cudaSuccess);
    handles_given_again += made == destroyed ? 1 : 0;
    ASSERT_EQ(cudaStreamWaitEvent(made, released, 0), cudaSuccess);
    ksync::cuda::reduce(made, second.data(), second.size(), reduce_op::sum, reduce_strategy::last_block,
                        results.data() + 1);
    EXPECT_GT(cuda::live_bytes(cuda::memory_kind::device), held) << "the new stream was given the old one's workspace";
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto values = results.to_host();
    EXPECT_EQ(values[0], reduction_reference(first_host, reduce_op::sum));
    EXPECT_EQ(values[1], reduction_reference(second_host, reduce_op::sum));
    ASSERT_EQ(cudaStreamDestroy(made), cudaSuccess);
  }
  ASSERT_EQ(cudaEventDestroy(released), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(gate), cudaSuccess);
  // 4 of 4 on an H100 with driver 580.159.04. A driver that never gives a handle back leaves the test nothing
  // to catch; it still checks each stream's sum.
  RecordProperty("handles_given_again", handles_given_again);
}

// A ksync::cuda::stream frees its workspace when destroyed, after the stream's work: nothing is held after it.
TEST(NativeReduceConcurrencyGpu, AnOwnedStreamFreesItsWorkspaceWhenDestroyed) {
  KSYNC_REQUIRE_GPU();
  const auto host = exact_reduction_input<std::int64_t>(1'000'003, 5u);
  const cuda::device_buffer<std::int64_t> data(host);
  cuda::device_buffer<std::int64_t> result(1);
  const std::size_t device_before = cuda::live_bytes(cuda::memory_kind::device);
  const std::size_t pinned_before = cuda::live_bytes(cuda::memory_kind::pinned);
  {
    const cuda::stream owned;
    spin_for<<<1, 1, 0, owned.get()>>>(50'000'000);
    ksync::cuda::reduce(owned.get(), data.data(), data.size(), reduce_op::sum, reduce_strategy::last_block,
                        result.data());
    EXPECT_GT(cuda::live_bytes(cuda::memory_kind::device), device_before);
  }  // the destructor waits for the spin and the reduction, then frees
  EXPECT_EQ(cuda::live_bytes(cuda::memory_kind::device), device_before);
  EXPECT_EQ(cuda::live_bytes(cuda::memory_kind::pinned), pinned_before);
  EXPECT_EQ(result.to_host()[0], reduction_reference(host, reduce_op::sum));
}

// Stores `value` at data[0, n).
__global__ void fill_with(std::int32_t* data, std::size_t n, std::int32_t value) {
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += threads)  // data bound: n
    data[i] = value;
}

// ksync::cuda::parallel_reduce's term: data[i].
struct element_term {
  const std::int32_t* data;
  __device__ void operator()(std::int32_t i, std::int32_t& acc) const { acc += data[i]; }
};

// A blocking call's kernel publishes its mailbox slot itself, and a stream's two slots alternate
// (ksync/cuda/mailbox.hpp): each of many blocking calls in a row, its data rewritten on the stream just before,
// returns its own sum, never a value an earlier call left in the slot. One block (n = 1 and 1000, where the
// single-pass finish stores at once), several and hundreds; every strategy; reduce, dot and parallel_reduce.
TEST(NativeReduceConcurrencyGpu, BackToBackBlockingCallsEachReturnTheirOwnValue) {
  KSYNC_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  constexpr int calls = 30;
  for (const std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{65'537}, std::size_t{1'048'583}}) {
    if (!size_enabled(n)) continue;
    cuda::device_buffer<std::int32_t> data(n);
    const cuda::device_buffer<std::int32_t> ones(std::vector<std::int32_t>(n, 1));
    const auto count = static_cast<std::int32_t>(n);
    for (const auto strategy : native_strategies) {
      if (refused_here(strategy)) continue;  // ClusterRefusalGpu checks the refusal
      int wrong = 0;
      std::string first_wrong;
      for (int call = 1; call <= calls; ++call) {
        fill_with<<<64, 256, 0, stream>>>(data.data(), n, call);
        ASSERT_EQ(cudaPeekAtLastError(), cudaSuccess) << "fill_with";
        std::int32_t sum = 0;
        const char* entry = "reduce";
        if (call % 3 == 0) {
          sum = ksync::cuda::reduce(stream, data.data(), n, reduce_op::sum, strategy);
        } else if (call % 3 == 1) {
          entry = "dot";
          sum = ksync::cuda::dot(stream, data.data(), ones.data(), n, strategy);
        } else {
          entry = "parallel_reduce";
          ksync::cuda::parallel_reduce(stream, count, element_term{data.data()}, sum, strategy);
        }
        if (sum != count * call && wrong++ == 0) {
          first_wrong = std::string(entry) + " call " + std::to_string(call) + " returned " + std::to_string(sum) +
                        ", not " + std::to_string(count * call);
        }
      }
      EXPECT_EQ(wrong, 0) << "n = " << n << ", strategy = " << ksync::to_string(strategy) << ": " << first_wrong;
    }
  }
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// A blocking call whose kernel publishes the value may return while that kernel retires; where the host may
// not touch managed memory meanwhile (no concurrent managed access) the reservation makes the wait wait for the
// stream too (ksync/cuda/mailbox.hpp), and only there.
TEST(NativeReduceConcurrencyGpu, AReservationWaitsForItsStreamExactlyWhereManagedMemoryCannotBeShared) {
  KSYNC_REQUIRE_GPU();
  int device = 0;
  int concurrent_managed_access = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&concurrent_managed_access, cudaDevAttrConcurrentManagedAccess, device),
            cudaSuccess);
  const cuda::stream stream;
  const auto reserved = cuda::mailbox::reserve(stream.get());
  EXPECT_EQ(reserved.wait_for_stream, concurrent_managed_access == 0);
}

// More than 2^32 elements (16 GiB of int32): zeros with markers at both ends, past the 32-bit range.
TEST(NativeReduceLargeGpu, IndicesBeyondTwoToThe32AreReached) {
  KSYNC_REQUIRE_GPU();
  if (std::getenv("KSYNC_TEST_MAX_SIZE") != nullptr) GTEST_SKIP() << "ksync-skip: too large under a sanitizer";
  const std::size_t n = (std::size_t{1} << 32) + 3;
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  if (free_bytes < n * sizeof(std::int32_t) + (std::size_t{1} << 30)) {
    GTEST_SKIP() << "ksync-skip: needs 17 GiB of free device memory";
  }
  cuda::device_buffer<std::int32_t> data(n);
  ASSERT_EQ(cudaMemset(data.data(), 0, n * sizeof(std::int32_t)), cudaSuccess);
  const std::int32_t markers[] = {1, 7, 5};  // at 0, 2^32 + 1 and 2^32 + 2
  ASSERT_EQ(cudaMemcpy(data.data(), &markers[0], 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(data.data() + n - 2, &markers[1], 8, cudaMemcpyHostToDevice), cudaSuccess);
  const std::int32_t negative = -4;  // at 2^32 - 1
  ASSERT_EQ(cudaMemcpy(data.data() + (std::size_t{1} << 32) - 1, &negative, 4, cudaMemcpyHostToDevice), cudaSuccess);
  for (const auto strategy : native_strategies) {
    if (refused_here(strategy)) continue;  // ClusterRefusalGpu checks the refusal
    SCOPED_TRACE(ksync::to_string(strategy));
    EXPECT_EQ(ksync::cuda::reduce(cudaStreamPerThread, data.data(), n, reduce_op::sum, strategy), 9);
    EXPECT_EQ(ksync::cuda::reduce(cudaStreamPerThread, data.data(), n, reduce_op::max, strategy), 7);
    EXPECT_EQ(ksync::cuda::reduce(cudaStreamPerThread, data.data(), n, reduce_op::min, strategy), -4);
  }
}

KSYNC_TYPED_GPU_SUITE(NativeReduceRoundingGpu, floating_types);

// The documented bound, gamma(ceil(n / P) + ceil(log2 P) + 3) * sum |x_i| for P threads (plus one rounding per
// block for atomics), with P bounded from the launch rules (support/rounding.hpp); each check's mutation fails.
TYPED_TEST(NativeReduceRoundingGpu, SumErrorStaysWithinTheDocumentedBound) {
  using T = TypeParam;
  int multiprocessors = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  for (const auto n : reduce_sizes) {
    if (!size_enabled(n)) continue;
    const auto host = signed_fractions<T>(n, 41u + static_cast<std::uint32_t>(n));
    const cuda::device_buffer<T> data(host);
    for (const auto strategy : native_strategies) {
      if (refused_here(strategy)) continue;  // ClusterRefusalGpu checks the refusal
      SCOPED_TRACE(::testing::Message() << "n = " << n << ", strategy = " << ksync::to_string(strategy));
      const bool atomic_chain = strategy == reduce_strategy::atomics || strategy == reduce_strategy::automatic;
      expect_rounded_sum(ksync::cuda::reduce(cudaStreamPerThread, data.data(), n, reduce_op::sum, strategy),
                         native_sum_rounding(host, static_cast<std::size_t>(multiprocessors), atomic_chain));
    }
  }
}

TEST(NativeReduceArguments, NullDataWithElementsIsRejectedWithItsSize) {
  float result_storage = 0;  // never written: the check fires before any CUDA call
  try {
    ksync::cuda::reduce<float>(nullptr, nullptr, 5, &result_storage);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "ksync::cuda::reduce: data is null but n = 5");
  }
}

TEST(NativeReduceArguments, BlockingCallChecksDataBeforeAllocating) {
  EXPECT_THROW((void)ksync::cuda::reduce<std::int64_t>(nullptr, nullptr, 3), std::invalid_argument);
  EXPECT_THROW((void)ksync::cuda::dot<double>(nullptr, nullptr, nullptr, 3), std::invalid_argument);
}

TEST(NativeReduceArguments, PortableStrategiesAndBadTuningAreRejectedByName) {
  const double value = 1.0;
  const auto message_of = [&](reduce_strategy strategy, const ksync::cuda::reduce_tuning& tuning) {
    return invalid_argument_message(
        [&] { (void)ksync::cuda::reduce(nullptr, &value, 1, reduce_op::sum, strategy, tuning); });
  };
  EXPECT_NE(message_of(reduce_strategy::team, {}).find("strategy = team is a portable (Kokkos) strategy"),
            std::string::npos);
  EXPECT_NE(message_of(reduce_strategy::automatic, {.block_size = 100}).find("tuning.block_size = 100"),
            std::string::npos);
  EXPECT_NE(message_of(reduce_strategy::cluster, {.cluster_size = 3}).find("tuning.cluster_size = 3"),
            std::string::npos);
  EXPECT_NE(message_of(reduce_strategy::automatic, {.blocks_per_sm = -1}).find("tuning.blocks_per_sm = -1"),
            std::string::npos);
}

TEST(NativeReduceArgumentsGpu, AGridSyncGridThatCannotBeCoResidentIsRefused) {
  KSYNC_REQUIRE_GPU();
  const cuda::device_buffer<float> data(std::vector<float>(1'000'000, 1.0f));
  try {
    // 512-thread blocks: at most 4 fit on a multiprocessor (2048 threads), so 16 cannot all be resident.
    (void)ksync::cuda::reduce(cudaStreamPerThread, data.data(), data.size(), reduce_op::sum, reduce_strategy::grid_sync,
                              {.block_size = 512, .blocks_per_sm = 16});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("grid_sync needs every block resident at once"), std::string::npos)
        << error.what();
  }
}

// Where clusters cannot run, reduce_strategy::cluster is refused before any work, naming the device and what
// it lacks (the portable twin is in bridge_test.cpp).
TEST(ClusterRefusalGpu, TheClusterStrategyIsRefusedNamingTheDevice) {
  KSYNC_REQUIRE_GPU();
  const auto& support = cluster_support_here();
  if (support.available) GTEST_SKIP() << "ksync-skip: clusters run here; the reduction tests run the strategy";
  const cuda::device_buffer<float> data(std::vector<float>(1000, 1.0f));
  try {
    (void)ksync::cuda::reduce(cudaStreamPerThread, data.data(), data.size(), reduce_op::sum, reduce_strategy::cluster);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "ksync::cuda::reduce: " + support.reason);
  }
}

TEST(NativeReduceArguments, NullResultIsRejected) {
  const double value = 1.0;
  EXPECT_THROW(ksync::cuda::reduce<double>(nullptr, &value, 1, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace ksync::test
