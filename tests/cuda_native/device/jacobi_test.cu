// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::jacobi: every native form against the host reference, bit for bit; the graph object and the
// graph kept per thread, rebuilt when an input it captured changes; the argument checks. (The portable forms, and the
// native ones through the bridge, are in tests/jacobi_test.cpp.)
#include "../../support/errors.hpp"
#include "../../support/gpu.hpp"
#include "../../support/reference.hpp"
#include "../../support/types.hpp"

#include <ksync/cuda/device/jacobi.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>

#include <gtest/gtest.h>

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ksync::jacobi_form;

const std::vector<jacobi_form> native_forms = ksync::ids_of_half<jacobi_form>(ksync::strategy_half::native);

struct grid_shape {
  int blocks_per_multiprocessor;
  int sweeps_per_barrier;
};
constexpr grid_shape persistent_shapes[] = {{1, 1}, {0, 1}, {1, 3}, {0, 8}};
constexpr grid_shape launch_shapes[] = {{1, 1}};
std::span<const grid_shape> shapes_of(jacobi_form form) {
  return ksync::runs_in_one_launch(form) ? std::span<const grid_shape>(persistent_shapes)
                                         : std::span<const grid_shape>(launch_shapes);
}

KSYNC_TYPED_GPU_SUITE(JacobiGpu, ksync::test::floating_types);

TYPED_TEST(JacobiGpu, EveryNativeFormMatchesTheReferenceBitForBit) {
  using T = TypeParam;
  const cudaStream_t stream = cudaStreamPerThread;
  for (const auto n : ksync::test::jacobi_sizes) {
    if (!ksync::test::size_enabled(n)) continue;
    const auto start = ksync::test::jacobi_start<T>(n, 5u);
    for (const int phases : {0, 1, 2, 7, 64}) {
      const auto expected = ksync::test::jacobi_reference(start, phases);
      for (const auto form : native_forms) {
        // The knobs only shape persistent grids. 3 sweeps per barrier: tiles whose halo is not a power of two;
        // 8 with 64 phases: rounds of equal length; with 7 phases: one round (parity) or shorter ones.
        for (const auto& [per_multiprocessor, sweeps_per_barrier] : shapes_of(form)) {
          SCOPED_TRACE("n = " + std::to_string(n) + ", phases = " + std::to_string(phases) + ", " +
                       std::string(ksync::to_string(form)) + ", blocks per SM " + std::to_string(per_multiprocessor) +
                       ", sweeps per barrier " + std::to_string(sweeps_per_barrier));
          ksync::cuda::device_buffer<T> u(start);
          ksync::cuda::device_buffer<T> scratch(n);
          const ksync::cuda::jacobi_tuning tuning{.blocks_per_multiprocessor = per_multiprocessor,
                                                  .sweeps_per_barrier = sweeps_per_barrier};
          T* result =
              ksync::cuda::jacobi(stream, u.data(), scratch.data(), static_cast<std::int64_t>(n), phases, form, tuning);
          EXPECT_EQ(result, phases % 2 == 0 ? u.data() : scratch.data());
          KSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));
          EXPECT_EQ(result == u.data() ? u.to_host() : scratch.to_host(), expected);
        }
      }
    }
  }
  EXPECT_EQ(ksync::cuda::barrier_timeouts(stream), 0u);
}

TEST(JacobiGpu, AGraphReplaysItsPhasesAndBackToBackCallsContinue) {
  KSYNC_REQUIRE_GPU();
  const cudaStream_t stream = cudaStreamPerThread;
  const auto start = ksync::test::jacobi_start<float>(100'003, 9u);
  ksync::cuda::device_buffer<float> u(start);
  ksync::cuda::device_buffer<float> scratch(start.size());
  const ksync::cuda::jacobi_graph<float> graph(u.data(), scratch.data(), 100'003, 6);
  for (int launch = 0; launch < 3; ++launch)
    EXPECT_EQ(graph.launch(stream), u.data());
  // Every persistent form continues from the state the graph left, on the same stream, without a sync.
  int phases = 18;
  for (const auto form : native_forms) {
    (void)ksync::cuda::jacobi(stream, u.data(), scratch.data(), 100'003, 10, form);
    phases += 10;
  }
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_EQ(u.to_host(), ksync::test::jacobi_reference(start, phases));
  EXPECT_EQ(ksync::cuda::barrier_timeouts(stream), 0u);
}

// The graph forms (cuda_graph) keep the graph they captured per thread: each captured input changed once (the other
// buffers, fewer points, another phase count, another block size) must give the reference, as a fresh
// capture does. An odd phase count leaves the result in scratch, so that a graph still sweeping the old
// scratch shows. The block size shapes the grid only: a stale graph would compute the same bits.
TEST(JacobiGpu, TheKeptGraphIsRebuiltForEachChangedInput) {
  KSYNC_REQUIRE_GPU();
  const cudaStream_t stream = cudaStreamPerThread;
  constexpr std::size_t n = 10'007;
  ksync::cuda::device_buffer<float> u(n);
  ksync::cuda::device_buffer<float> scratch(n);
  ksync::cuda::device_buffer<float> other_u(n);
  ksync::cuda::device_buffer<float> other_scratch(n);
  struct call {
    const char* changed;
    ksync::cuda::device_buffer<float>* u;
    ksync::cuda::device_buffer<float>* scratch;
    std::size_t n;
    int phases;
    int block_size;
  };
  const call calls[] = {{"nothing (the first capture)", &u, &scratch, n, 7, 256},
                        {"u", &other_u, &scratch, n, 7, 256},
                        {"scratch", &other_u, &other_scratch, n, 7, 256},
                        {"n", &other_u, &other_scratch, n - 1000, 7, 256},
                        {"phases", &other_u, &other_scratch, n - 1000, 10, 256},
                        {"block size", &other_u, &other_scratch, n - 1000, 10, 64},
                        {"nothing (a replay)", &other_u, &other_scratch, n - 1000, 10, 64}};
  for (const auto form : native_forms) {
    if (!ksync::replays_a_graph(form)) continue;  // the forms that keep a captured graph
    unsigned int seed = 1;
    for (const auto& c : calls) {
      SCOPED_TRACE(std::string(ksync::to_string(form)) + ", changed: " + c.changed);
      std::vector<float> start = ksync::test::jacobi_start<float>(c.n, seed++);
      std::vector<float> padded = start;
      padded.resize(n, -7.0f);  // past n: must stay as it is
      KSYNC_CUDA_CHECK(cudaMemcpy(c.u->data(), padded.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      KSYNC_CUDA_CHECK(cudaMemcpy(c.scratch->data(), padded.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      float* result = ksync::cuda::jacobi(stream, c.u->data(), c.scratch->data(), static_cast<std::int64_t>(c.n),
                                          c.phases, form, {.block_size = c.block_size});
      KSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));
      std::vector<float> expected = ksync::test::jacobi_reference(start, c.phases);
      expected.resize(n, -7.0f);
      EXPECT_EQ(result == c.u->data() ? c.u->to_host() : c.scratch->to_host(), expected);
    }
  }
}

TEST(Jacobi, BadArgumentsThrowNamingThem) {
  float a = 0;
  float b = 0;
  const cudaStream_t stream = cudaStreamPerThread;
  const auto form = jacobi_form::launch_per_phase;
  // jacobi(u, scratch, n, phases, form, tuning) refused with `expected` in the message.
  const auto refused = [&](float* u, float* scratch, std::int64_t n, int phases, jacobi_form f,
                           ksync::cuda::jacobi_tuning tuning, const char* expected) {
    return ksync::test::refuses([&] { (void)ksync::cuda::jacobi(stream, u, scratch, n, phases, f, tuning); }, expected);
  };
  const ksync::cuda::jacobi_tuning plain{};
  EXPECT_TRUE(refused(&a, &b, -1, 1, form, plain, "n = -1"));
  EXPECT_TRUE(refused(&a, &b, 1, -2, form, plain, "phases = -2"));
  EXPECT_TRUE(refused(nullptr, &b, 1, 1, form, plain, "null"));
  EXPECT_TRUE(refused(&a, &a, 1, 1, form, plain, "same buffer"));
  EXPECT_TRUE(refused(&a, &b, 1, 1, jacobi_form::kokkos_graph, plain, "form = kokkos_graph"));
  EXPECT_TRUE(refused(&a, &b, 1, 1, static_cast<jacobi_form>(99), plain, "form = 99 is not an jacobi_form"));
  EXPECT_TRUE(refused(&a, &b, 1, 1, form, {.block_size = 0}, "tuning.block_size = 0"));
  EXPECT_TRUE(refused(&a, &b, 1, 1, form, {.sweeps_per_barrier = 0}, "tuning.sweeps_per_barrier = 0"));
  EXPECT_TRUE(
      refused(&a, &b, 1, 1, form, {.sweeps_per_barrier = 257}, "tuning.sweeps_per_barrier = 257 is outside [1, 256]"));
}

}  // namespace
