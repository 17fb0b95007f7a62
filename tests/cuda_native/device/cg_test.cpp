// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::cg: every native form against the host CG (support/cg_reference.hpp), float and double, the
// solver object, and the argument checks. (The portable forms, and the native ones through the bridge, are
// in tests/cg_test.cpp.)
#include "../../support/errors.hpp"
#include "../../support/gpu.hpp"
#include "../../support/native_cg.hpp"
#include "../../support/sparse.hpp"
#include "../../support/types.hpp"

#include <ksync/cuda/device/cg.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using ksync::cg_form;

KSYNC_TYPED_GPU_SUITE(CgGpu, ksync::test::floating_types);

template <class T>
void expect_matches_reference(int m, cg_form form, const std::vector<T>& x0, const ksync::cuda::cg_tuning& tuning) {
  SCOPED_TRACE("form " + std::string(ksync::to_string(form)) + ", m = " + std::to_string(m));
  const auto c = ksync::test::stencil_case<T>(m, 7u + static_cast<unsigned int>(m), 10, x0);
  const auto [result, x] = ksync::test::solve_case(m, c, form, c.options(5, true), tuning);
  ksync::test::expect_agrees(c, result, x, ksync::test::classic_stencil_agreement<T>());
  ASSERT_EQ(result.residual_history.size(), static_cast<std::size_t>(result.iterations) + 1);
  EXPECT_DOUBLE_EQ(result.residual_history.back(), result.relative_residual);
}

TYPED_TEST(CgGpu, EveryNativeFormMatchesTheHostReference) {
  using T = TypeParam;
  for (const int m : ksync::test::cg_grid_sizes) {
    if (!ksync::test::cg_grid_enabled(m)) continue;
    const std::vector<T> zero(static_cast<std::size_t>(m) * m, T(0));
    for (const auto form : ksync::test::native_forms_here())
      expect_matches_reference<T>(m, form, zero, {});
  }
}

TYPED_TEST(CgGpu, FusedPassFormsOnEveryGridShape) {
  using T = TypeParam;
  // 10,000 unknowns: 40 blocks at one element per thread, one at 64; 1,600 under the sanitizers: 7 and 1.
  const int m = ksync::test::cg_grid_enabled(100) ? 100 : 40;
  const auto guess = ksync::test::cg_right_hand_side<T>(m, 12u);
  ksync::test::for_each_grid_shape([&](const ksync::cuda::cg_tuning& tuning) {
    for (const auto form : ksync::test::native_forms_where(ksync::runs_fused_pass))
      expect_matches_reference<T>(m, form, guess, tuning);
  });
}

// Six blocks a multiprocessor: more than the classic persistent kernel's roomy build fits with double on an
// H200 (four), so its held build runs (ksync/cuda/detail/cg/persistent.cuh), which the occupancy's own choice
// takes only on grids larger than a test's.
TYPED_TEST(CgGpu, ThePersistentFormsSolveOnTheHeldBuild) {
  using T = TypeParam;
  const int m = ksync::test::cg_grid_enabled(100) ? 100 : 40;
  const auto guess = ksync::test::cg_right_hand_side<T>(m, 12u);
  for (const auto form : ksync::test::native_forms_where(ksync::runs_in_one_launch<cg_form>))
    expect_matches_reference<T>(m, form, guess, {.elements_per_thread = 1, .blocks_per_multiprocessor = 6});
}

// persistent_cluster on every cluster size (tuning.cluster_blocks) and on the one it picks (0; solved with an
// elements_per_thread far from the default, which must not size the cluster: the size itself is not visible
// here, the solve's agreement with the host is); with its vectors where it picks (automatic: in shared memory
// at m = 100, where every cluster size gives a block more than one row a thread; at m = 40, under the sanitizers,
// in shared memory on up to 4 blocks and in global memory on 8 and 16) and in each memory asked for, on a grid
// whose vectors fit one block's shared memory (m = 40: 1,600 unknowns, 64 KB in double), so that shared_memory
// is never refused for room.
TYPED_TEST(CgGpu, ThePersistentClusterFormSolvesOnEveryClusterSize) {
  using T = TypeParam;
  using ksync::cuda::cg_cluster_vectors;
  KSYNC_REQUIRE_CLUSTERS();
  for (const auto placement :
       {cg_cluster_vectors::automatic, cg_cluster_vectors::shared_memory, cg_cluster_vectors::global_memory}) {
    const int m = placement == cg_cluster_vectors::automatic && ksync::test::cg_grid_enabled(100) ? 100 : 40;
    const auto guess = ksync::test::cg_right_hand_side<T>(m, 13u);
    for (const int blocks : {0, 1, 2, 4, 8, 16}) {
      SCOPED_TRACE("cluster_blocks = " + std::to_string(blocks) +
                   ", cluster_vectors = " + std::string(ksync::cuda::to_string(placement)));
      ksync::test::expect_runs_unless_cluster_16_is_refused(blocks, [&] {
        expect_matches_reference<T>(
            m, cg_form::persistent_cluster, guess,
            {.elements_per_thread = blocks == 0 ? 64 : 4, .cluster_blocks = blocks, .cluster_vectors = placement});
      });
    }
  }
}

// The vectors in shared memory under Jacobi, on a matrix whose rows reach columns far from their own (a random
// graph Laplacian: most of a row's entries live in other blocks of the cluster), on every cluster size.
TYPED_TEST(CgGpu, TheClusterKeepsAMatrixsVectorsInSharedMemory) {
  using T = TypeParam;
  KSYNC_REQUIRE_CLUSTERS();
  const int m = ksync::test::cg_grid_enabled(24) ? 24 : 12;
  const auto host = ksync::test::generate<T, std::int32_t>(ksync::test::sparse_family::random_laplacian, m);
  for (const auto preconditioner : {ksync::cg_preconditioner::none, ksync::cg_preconditioner::jacobi}) {
    for (const int blocks : {1, 2, 4, 8, 16}) {
      SCOPED_TRACE("cluster_blocks = " + std::to_string(blocks));
      ksync::test::expect_runs_unless_cluster_16_is_refused(blocks, [&] {
        ksync::test::expect_csr_solves(
            host, cg_form::persistent_cluster, preconditioner, ksync::cg_recurrence::classic,
            {.cluster_blocks = blocks, .cluster_vectors = ksync::cuda::cg_cluster_vectors::shared_memory});
      });
    }
  }
}

// Two host threads solving different sizes in shared memory at once, each on its own cudaStreamPerThread, and each
// solve agreeing with the host. The resident kernel's dynamic shared-memory limit is one value for the device
// (persistent_cluster.cuh), so neither launch can find it lowered to the other's need; this test does not catch
// that race, whose window is short (with the limit set to each solve's bytes again it passed 20 repeats out of 20 on
// an H100, docs/results/2026-12-06-h100-16662b7). At m = 80 a block's five vectors take 64,000 bytes (double),
// above the 48 KB a kernel gets without raising the limit (m = 40 under the sanitizers: 16,000); at m = 32, 10,240.
TEST(CgClusterVectorsGpu, TwoHostThreadsSolveDifferentSizesAtOnce) {
  KSYNC_REQUIRE_CLUSTERS();
  const auto solve_repeatedly = [](int m) {
    const auto guess = ksync::test::cg_right_hand_side<double>(m, 5u);
    for (int round = 0; round < 8; ++round)
      expect_matches_reference<double>(
          m, cg_form::persistent_cluster, guess,
          {.cluster_blocks = 4, .cluster_vectors = ksync::cuda::cg_cluster_vectors::shared_memory});
  };
  std::thread small(solve_repeatedly, 32);
  std::thread large(solve_repeatedly, ksync::test::cg_grid_enabled(80) ? 80 : 40);
  small.join();
  large.join();
}

// shared_memory where the resident kernel cannot run: refused before any work, naming why; x left as it was.
TEST(CgClusterVectorsGpu, SharedMemoryIsRefusedWhereTheResidentKernelCannotRun) {
  KSYNC_REQUIRE_CLUSTERS();
  using ksync::cuda::cg_cluster_vectors;
  const auto message = [](auto&& call) { return ksync::test::invalid_argument_message(call); };
  const cudaStream_t s = cudaStreamPerThread;
  {
    const int m = 8;
    const auto guess = ksync::test::cg_right_hand_side<double>(m, 8u);
    const ksync::cuda::device_buffer<double> b(ksync::test::cg_right_hand_side<double>(m, 9u));
    ksync::cuda::device_buffer<double> x(guess);
    ksync::cuda::cg_solver<double> solver(m);
    EXPECT_EQ(message([&] {
                (void)solver.solve(
                    s, b.data(), x.data(), cg_form::persistent_cluster, {},
                    {.blocks_per_multiprocessor = 1, .cluster_vectors = cg_cluster_vectors::shared_memory});
              }),
              "ksync::cuda::cg: tuning.cluster_vectors = shared_memory runs one block a multiprocessor; "
              "tuning.blocks_per_multiprocessor = 1 needs cluster_vectors = global_memory or automatic");
    EXPECT_EQ(message([&] {
                (void)solver.solve(s, b.data(), x.data(), cg_form::persistent_cluster, {},
                                   {.cluster_vectors = static_cast<cg_cluster_vectors>(7)});
              }),
              "ksync::cuda::cg: tuning.cluster_vectors = 7 is not a cg_cluster_vectors (automatic, shared_memory, "
              "global_memory)");
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(s));
    EXPECT_EQ(x.to_host(), guess);
  }
  {
    // 250,000 unknowns on 8 blocks: 31,250 a block, 250,000 bytes of each vector in double, more than any device
    // gives a block (automatic placement keeps such vectors in global memory).
    const int m = 500;
    const std::vector<double> guess(static_cast<std::size_t>(m) * m, 1.0);
    const ksync::cuda::device_buffer<double> b(guess);
    ksync::cuda::device_buffer<double> x(guess);
    ksync::cuda::cg_solver<double> solver(m);
    for (const auto recurrence : {ksync::cg_recurrence::classic, ksync::cg_recurrence::pipelined}) {
      ksync::cg_options options;
      options.recurrence = recurrence;
      const std::string refusal = message([&] {
        (void)solver.solve(s, b.data(), x.data(), cg_form::persistent_cluster, options,
                           {.cluster_blocks = 8, .cluster_vectors = cg_cluster_vectors::shared_memory});
      });
      // Five vectors classic, seven pipelined.
      const std::string bytes = recurrence == ksync::cg_recurrence::classic ? "1250000" : "1750000";
      EXPECT_EQ(refusal.rfind("ksync::cuda::cg: tuning.cluster_vectors = shared_memory: 250000 unknowns on a cluster "
                              "of 8 blocks need " +
                                  bytes + " bytes of shared memory a block for their vectors; device ",
                              0),
                0u)
          << refusal;
    }
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(s));
    EXPECT_EQ(x.to_host(), guess);
  }
}

// Where clusters cannot run (a device older than sm_90, or a build without sm_90 code), persistent_cluster is
// refused before any work, naming the device and what it lacks, and x is left as it was.
TEST(CgClusterRefusalGpu, ThePersistentClusterFormIsRefusedWhereClustersCannotRun) {
  KSYNC_REQUIRE_GPU();
  const auto& support = ksync::test::cluster_support_here();
  if (support.available) GTEST_SKIP() << "ksync-skip: clusters run here; CgGpu solves with persistent_cluster";
  const int m = 4;
  const auto guess = ksync::test::cg_right_hand_side<double>(m, 8u);
  const ksync::cuda::device_buffer<double> b(ksync::test::cg_right_hand_side<double>(m, 9u));
  ksync::cuda::device_buffer<double> x(guess);
  EXPECT_EQ(ksync::test::invalid_argument_message([&] {
              (void)ksync::cuda::cg(cudaStreamPerThread, m, b.data(), x.data(), cg_form::persistent_cluster);
            }),
            "ksync::cuda::cg: " + support.reason);
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  EXPECT_EQ(x.to_host(), guess);
}

TYPED_TEST(CgGpu, StopsAtMaxIterationsAndKeepsItsBuffers) {
  using T = TypeParam;
  const int m = 40;
  ksync::cuda::cg_solver<T> solver(m);
  const ksync::cuda::device_buffer<T> b(ksync::test::cg_right_hand_side<T>(m, 3u));
  for (const auto form : ksync::test::native_forms_here()) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    ksync::cuda::device_buffer<T> x(static_cast<std::size_t>(m) * m);
    KSYNC_CUDA_CHECK(cudaMemset(x.data(), 0, x.size() * sizeof(T)));
    ksync::cg_options options;
    options.tolerance = 1e-30;
    options.max_iterations = 9;
    options.check_every = 4;                   // batches run past max_iterations and must stop on the device
    for (int solve = 0; solve < 2; ++solve) {  // the second solve continues from the first one's x
      const auto result = solver.solve(cudaStreamPerThread, b.data(), x.data(), form, options);
      EXPECT_FALSE(result.converged);
      EXPECT_EQ(result.iterations, 9);
    }
  }
}

TYPED_TEST(CgGpu, ZeroRightHandSideGivesZeroAtOnce) {
  using T = TypeParam;
  const int m = 9;
  for (const auto form : ksync::test::native_forms_here()) {
    SCOPED_TRACE(std::string(ksync::to_string(form)));
    ksync::cuda::device_buffer<T> b(static_cast<std::size_t>(m) * m);
    KSYNC_CUDA_CHECK(cudaMemset(b.data(), 0, b.size() * sizeof(T)));
    ksync::cuda::device_buffer<T> x(ksync::test::cg_right_hand_side<T>(m, 1u));
    const auto result = ksync::cuda::cg(cudaStreamPerThread, m, b.data(), x.data(), form);
    KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    EXPECT_TRUE(result.converged);
    EXPECT_EQ(result.iterations, 0);
    for (const T value : x.to_host())
      EXPECT_EQ(value, T(0));
  }
}

TEST(CgGpuArguments, BadInputIsRefusedBeforeAnyWork) {
  KSYNC_REQUIRE_GPU();
  const int m = 4;
  const auto guess = ksync::test::cg_right_hand_side<double>(m, 8u);
  const ksync::cuda::device_buffer<double> b(ksync::test::cg_right_hand_side<double>(m, 9u));
  ksync::cuda::device_buffer<double> x(guess);
  ksync::cuda::cg_solver<double> solver(m);
  const auto message = [](auto&& call) { return ksync::test::invalid_argument_message(call); };
  const cudaStream_t s = cudaStreamPerThread;
  const auto with = [](auto change) {
    ksync::cg_options options;
    change(options);
    return options;
  };
  EXPECT_EQ(message([&] {
              (void)solver.solve(s, b.data(), x.data(), cg_form::fused, with([](auto& o) { o.tolerance = 0; }));
            }),
            "ksync::cuda::cg: options.tolerance = 0 must be positive and finite");
  EXPECT_EQ(message([&] {
              (void)solver.solve(s, b.data(), x.data(), cg_form::fused,
                                 with([](auto& o) { o.tolerance = std::numeric_limits<double>::quiet_NaN(); }));
            }),
            "ksync::cuda::cg: options.tolerance = nan must be positive and finite");
  EXPECT_EQ(message([&] {
              (void)solver.solve(s, b.data(), x.data(), cg_form::fused, with([](auto& o) { o.max_iterations = 0; }));
            }),
            "ksync::cuda::cg: options.max_iterations = 0 must be at least 1");
  EXPECT_EQ(message([&] { (void)solver.solve(s, nullptr, x.data(), cg_form::fused); }), "ksync::cuda::cg: b is null");
  EXPECT_EQ(message([&] { (void)solver.solve(s, b.data(), nullptr, cg_form::fused); }), "ksync::cuda::cg: x is null");
  for (const auto form : ksync::all_cg_forms) {  // the portable half's own forms, refused naming ksync::cuda's
    if (ksync::half_of(form) != ksync::strategy_half::portable) continue;
    std::ostringstream expected;
    expected << "ksync::cuda::cg: form = " << ksync::to_string(form) << " is portable (Kokkos); ksync::cuda runs "
             << ksync::names_of_half<cg_form>{ksync::strategy_half::native};
    EXPECT_EQ(message([&] { (void)solver.solve(s, b.data(), x.data(), form); }), expected.str());
  }
  EXPECT_EQ(message([&] { (void)solver.solve(s, b.data(), x.data(), cg_form::fused, {}, {.elements_per_thread = 0}); }),
            "ksync::cuda::cg: tuning.elements_per_thread = 0 must be at least 1");
  EXPECT_EQ(message([&] {
              (void)solver.solve(s, b.data(), x.data(), cg_form::persistent_cluster, {}, {.cluster_blocks = 3});
            }),
            "ksync::cuda::cg: tuning.cluster_blocks = 3 is not one of 1, 2, 4, 8, 16");
  // A grid that cannot be resident at once: refused before the launch, naming what fits.
  for (const auto form : ksync::test::native_forms_where(ksync::runs_in_one_launch<cg_form>)) {
    EXPECT_NE(message([&] {
                (void)solver.solve(s, b.data(), x.data(), form, {}, {.blocks_per_multiprocessor = 1000});
              }).find("ksync::cuda::cg: blocks_per_multiprocessor = 1000 but only "),
              std::string::npos);
  }
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(s));
  EXPECT_EQ(x.to_host(), guess);  // nothing ran
}

TEST(CgArguments, ExtentsAreCheckedBeforeAnyAllocation) {
  const auto message = [](auto&& call) { return ksync::test::invalid_argument_message(call); };
  EXPECT_EQ(message([] { ksync::cuda::cg_solver<float> solver(0); }), "ksync::cuda::cg: m = 0 must be at least 1");
  EXPECT_EQ(message([] { ksync::cuda::cg_solver<float> solver(46296); }),
            "ksync::cuda::cg: m = 46296 gives m * m unknowns, more than the kernels' 32-bit grid-stride indices hold "
            "(m <= 46295)");
}

}  // namespace
