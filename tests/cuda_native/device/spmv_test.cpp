// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::spmv against the host reference in double (support/spmv.hpp): every native strategy, float and
// double, every index pair, every generated family and the matrices with empty and long rows; the refusals,
// which need no GPU. (The portable half's twin: tests/spmv_test.cpp.)
#include "../../support/spmv.hpp"
#include "../../support/errors.hpp"
#include "../../support/gpu.hpp"
#include "../../support/types.hpp"

#include <ksync/cuda/csr_matrix.hpp>
#include <ksync/cuda/device/spmv.hpp>
#include <ksync/cuda/device_buffer.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace ksync::test {
namespace {

const std::vector<spmv_strategy> strategies = ids_of_half<spmv_strategy>(strategy_half::native);

// A host matrix's arrays on the device and the native matrix over them (checked on cudaStreamPerThread).
template <class T, class Index, class Offset>
struct device_csr {
  explicit device_csr(const host_csr_matrix<T, Index, Offset>& host)
      : row_offsets(host.row_offsets),
        columns(host.columns),
        values(host.values),
        a(cudaStreamPerThread, host.rows, host.cols, host.nnz(), row_offsets.data(), columns.data(), values.data()) {}
  cuda::device_buffer<Offset> row_offsets;
  cuda::device_buffer<Index> columns;
  cuda::device_buffer<T> values;
  cuda::csr_matrix<T, Index, Offset> a;
};

KSYNC_TYPED_GPU_SUITE(NativeSpmvGpu, floating_types);

TYPED_TEST(NativeSpmvGpu, EveryStrategyIndexPairAndMatrixMatchesTheReference) {
  using T = TypeParam;
  for_each_index_pair([&]<class Index, class Offset>() {
    for (const auto& c : spmv_cases<T, Index, Offset>()) {
      SCOPED_TRACE(c.name + ", Index " + std::to_string(sizeof(Index) * 8) + ", Offset " +
                   std::to_string(sizeof(Offset) * 8));
      const device_csr<T, Index, Offset> matrix(c.a);
      const auto x_host = sparse_right_hand_side<T>(c.a.cols, 5u + static_cast<unsigned int>(c.a.rows));
      const auto reference = spmv_expected(c.a, x_host);
      const cuda::device_buffer<T> x(x_host);
      for (const auto strategy : strategies) {
        SCOPED_TRACE("strategy " + std::string(to_string(strategy)));
        // Poisoned, so that a row left unwritten (an empty one included) shows.
        cuda::device_buffer<T> y(std::vector<T>(static_cast<std::size_t>(c.a.rows), static_cast<T>(12345)));
        cuda::spmv(cudaStreamPerThread, matrix.a, x.data(), y.data(), strategy);
        ASSERT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
        EXPECT_TRUE(agrees(y.to_host(), reference));
      }
    }
  });
}

// Asynchronous on its stream: two products on two streams, each waited for on its own.
TEST(NativeSpmvGpu, RunsOnTheStreamItIsGiven) {
  KSYNC_REQUIRE_GPU();
  const auto host = with_long_rows<double, std::int32_t>(300, 900, 400);
  const device_csr<double, std::int32_t, std::int32_t> matrix(host);
  const auto x_host = sparse_right_hand_side<double>(host.cols, 9u);
  const cuda::device_buffer<double> x(x_host);
  cudaStream_t streams[2] = {nullptr, nullptr};
  for (auto& stream : streams)
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  cuda::device_buffer<double> y0(static_cast<std::size_t>(host.rows));
  cuda::device_buffer<double> y1(static_cast<std::size_t>(host.rows));
  cuda::spmv(streams[0], matrix.a, x.data(), y0.data(), spmv_strategy::row_per_thread);
  cuda::spmv(streams[1], matrix.a, x.data(), y1.data(), spmv_strategy::lanes_per_row);
  for (auto& stream : streams) {
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  }
  const auto reference = spmv_expected(host, x_host);
  EXPECT_TRUE(agrees(y0.to_host(), reference));
  EXPECT_TRUE(agrees(y1.to_host(), reference));
}

// Refused before any CUDA call, so these run without a GPU: the matrix is made by already_checked() (no
// kernel) over host addresses that are never read.
TEST(NativeSpmvArguments, NullArraysOverlapAndUnknownStrategiesAreRefused) {
  std::int32_t offsets[7] = {};
  std::int32_t columns[1] = {};
  double values[1] = {};
  double x[6] = {};
  double y[6] = {};
  const auto a = cuda::csr_matrix<double>::already_checked(6, 6, 1, offsets, columns, values);
  const auto refused = [](auto&& call, const std::string& expected) { return refuses(call, expected); };
  EXPECT_TRUE(refused([&] { cuda::spmv(nullptr, a, static_cast<const double*>(nullptr), y); },
                      "ksync::cuda::spmv: x is null but a has 6 columns"));
  EXPECT_TRUE(refused([&] { cuda::spmv(nullptr, a, x, static_cast<double*>(nullptr)); },
                      "ksync::cuda::spmv: y is null but a has 6 rows"));
  EXPECT_TRUE(refused(
      [&] { cuda::spmv(nullptr, cuda::csr_matrix<double>::already_checked(6, 6, 1, nullptr, columns, values), x, y); },
      "ksync::cuda::spmv: a.row_offsets() is null but a has 6 rows"));
  EXPECT_TRUE(refused(
      [&] { cuda::spmv(nullptr, cuda::csr_matrix<double>::already_checked(6, 6, 1, offsets, columns, nullptr), x, y); },
      "ksync::cuda::spmv: a.columns() or a.values() is null but a has 1 entries"));
  EXPECT_TRUE(refused([&] { cuda::spmv(nullptr, a, x, x); }, "ksync::cuda::spmv: y overlaps x"));
  double z[10] = {};
  EXPECT_TRUE(refused([&] { cuda::spmv(nullptr, a, z, z + 4); }, "ksync::cuda::spmv: y overlaps x"));
  std::ostringstream listed;
  listed << names_of_half<spmv_strategy>{strategy_half::native};
  EXPECT_EQ(listed.str(), "automatic, row_per_thread, lanes_per_row");
  EXPECT_TRUE(refused([&] { cuda::spmv(nullptr, a, x, y, static_cast<spmv_strategy>(3)); },
                      "ksync::cuda::spmv: strategy = 3 is not a spmv_strategy (" + listed.str() + ")"));
  // A matrix without rows asks nothing of the arrays and launches nothing.
  EXPECT_NO_THROW(cuda::spmv<double>(nullptr, cuda::csr_matrix<double>{}, nullptr, nullptr));
}

}  // namespace
}  // namespace ksync::test
