// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Parity: the portable (Kokkos) and native (CUDA) operations of the same name give the same answer on the
// same input. Integer inputs, and floats holding small integers, must agree bitwise (every partial sum is
// exact); floats with fractions may differ by rounding, within the sum of both paths' error bounds.
#include "support/gpu.hpp"
#include "support/kokkos.hpp"
#include "support/reference.hpp"
#include "support/rounding.hpp"
#include "support/types.hpp"

#include <ksync/cuda/device/predicates.hpp>
#include <ksync/cuda/device/reduce.hpp>
#include <ksync/cuda/device/reverse.hpp>
#include <ksync/cuda/device/segment_reduce.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/ksync.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace ksync::test {
namespace {

KSYNC_TYPED_GPU_SUITE(ParityGpu, value_types);

TYPED_TEST(ParityGpu, ReduceReverseAndSegmentReduceAgreeBitwiseOnExactInputs) {
  using T = TypeParam;
  const Kokkos::DefaultExecutionSpace exec;
  for (const std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{4099}, std::size_t{1'000'003}}) {
    SCOPED_TRACE(::testing::Message() << "n = " << n);
    const auto host = signed_integers<T>(n, 23u + static_cast<std::uint32_t>(n), 7);
    const auto portable_data = to_device(host);
    const cuda::device_buffer<T> native_data(host);

    // tuned: the portable fold (`automatic` would run the native kernel here).
    EXPECT_EQ(ksync::reduce(exec, portable_data, ksync::reduce_op::sum, ksync::reduce_strategy::tuned),
              ksync::cuda::reduce(cudaStreamPerThread, native_data.data(), n));

    const Kokkos::View<T*> portable_reversed("reversed", n);
    ksync::reverse(exec, portable_data, portable_reversed);
    cuda::device_buffer<T> native_reversed(n);
    ksync::cuda::reverse(cudaStreamPerThread, native_data.data(), native_reversed.data(), n);
    ASSERT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
    EXPECT_EQ(to_host(portable_reversed), native_reversed.to_host());

    for (const auto op : {ksync::reduce_op::sum, ksync::reduce_op::min, ksync::reduce_op::max}) {
      const std::size_t segments = (n + 99) / 100;
      const Kokkos::View<T*> portable_out("segments", segments);
      ksync::segment_reduce(exec, portable_data, 100, op, ksync::segment_form::team_reduce, portable_out);
      cuda::device_buffer<T> native_out(segments);
      ksync::cuda::segment_reduce(cudaStreamPerThread, native_data.data(), n, 100, op, ksync::segment_form::shuffle,
                                  native_out.data());
      ASSERT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
      EXPECT_EQ(to_host(portable_out), native_out.to_host()) << ksync::to_string(op);
    }
  }
}

TEST(ParityGpu, SegmentPredicatesAgree) {
  KSYNC_REQUIRE_GPU();
  const std::size_t n = 100'003;
  const auto flags = mixed_flags(n, 96, 9);
  const Kokkos::View<ksync::predicate_summary*> portable_out("summaries", (n + 95) / 96);
  ksync::segment_predicates(Kokkos::DefaultExecutionSpace{}, to_device(flags), 96, portable_out);
  const cuda::device_buffer<std::int32_t> native_flags(flags);
  cuda::device_buffer<ksync::predicate_summary> native_out((n + 95) / 96);
  ksync::cuda::segment_predicates(cudaStreamPerThread, native_flags.data(), n, 96, native_out.data());
  ASSERT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
  EXPECT_EQ(to_host(portable_out), native_out.to_host());
}

// Fractional floats: the two paths add in different orders. Each result is within its documented bound of
// the exact sum, so they are within the sum of the two bounds of each other (and the check's mutation fails).
TEST(ParityGpu, FloatSumsWithFractionsAgreeWithinTheRoundingBound) {
  KSYNC_REQUIRE_GPU();
  const Kokkos::DefaultExecutionSpace exec;
  const auto host = signed_fractions<float>(1'000'003, 31);
  const cuda::device_buffer<float> native_data(host);
  // tuned: the portable fold (`automatic` would run the native kernel here).
  const float portable = ksync::reduce(exec, to_device(host), ksync::reduce_op::sum, ksync::reduce_strategy::tuned);
  const float native = ksync::cuda::reduce(cudaStreamPerThread, native_data.data(), host.size());
  int multiprocessors = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  const auto portable_check = portable_sum_rounding(host, false, static_cast<std::size_t>(exec.concurrency()));
  const auto native_check = native_sum_rounding(host, static_cast<std::size_t>(multiprocessors), true);
  // The native result as the reference, within both bounds: a check of |portable - native|.
  const rounding_check between{
      .exact = native, .bound = portable_check.bound + native_check.bound, .ulp_term = native_check.ulp_term};
  expect_rounded_sum(portable, between);
}

}  // namespace
}  // namespace ksync::test
