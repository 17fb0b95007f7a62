// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::spmv (native): y = A x in every native strategy on the matrices of bench/spmv.hpp (the 2-D and 3-D
// Poisson matrices, rows of 256 entries; double, 32-bit indices), beside cuSPARSE's cusparseSpMV on the same
// CSR arrays (set up as the CG anchor of cg_csr_bench.cu sets it up: the vendor's own choice of algorithm,
// CUSPARSE_SPMV_ALG_DEFAULT, its workspace sized once). Timed with events on cudaStreamPerThread
// (time_on_stream); bytes_per_second is the least a call moves (bytes_floor_per_call) over its time. Every row
// checks y against the exact host y. The portable strategies and Kokkos Kernels are in bench/spmv_bench.cpp.
#include "../spmv.hpp"
#include "native.cuh"

#include <ksync/cuda/csr_matrix.hpp>
#include <ksync/cuda/device/spmv.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>

#include <benchmark/benchmark.h>
#include <cusparse.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ksync::bench {
namespace {

using ksync::cuda::device_buffer;

void check_cusparse(cusparseStatus_t status, const char* call) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cusparseGetErrorString(status));
}

// The host problem's arrays on the device, the native matrix over them, x, y and the exact y.
struct problem {
  explicit problem(const spmv_host_problem& host)
      : row_offsets(host.a.row_offsets),
        columns(host.a.columns),
        values(host.a.values),
        a(cudaStreamPerThread, host.a.rows, host.a.cols, host.a.nnz(), row_offsets.data(), columns.data(),
          values.data()),
        x(host.x),
        expected(host.y),
        y(static_cast<std::size_t>(host.a.rows)) {}
  device_buffer<std::int32_t> row_offsets;
  device_buffer<std::int32_t> columns;
  device_buffer<double> values;
  ksync::cuda::csr_matrix<double> a;
  device_buffer<double> x;
  device_buffer<double> expected;
  device_buffer<double> y;
};

// Times call(p) on cudaStreamPerThread, then checks y and records the row.
template <class Call>
void time_spmv_call(benchmark::State& state, const spmv_case& c, Call&& call) {
  const auto& host = c.load(state.range(0));
  problem p(host);
  time_on_stream(state, cudaStreamPerThread, spmv_bytes_floor(host.a), [&] { call(p); });
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  check_elements(state, p.y.data(), host.a.rows, spmv_expected_y{p.expected.data()}, "y = A x");
  record_spmv(state, host.a);
}

void time_ksync(benchmark::State& state, const spmv_case& c, ksync::spmv_strategy strategy) {
  time_spmv_call(state, c,
                 [&](problem& p) { ksync::cuda::spmv(cudaStreamPerThread, p.a, p.x.data(), p.y.data(), strategy); });
}

// cusparseSpMV (y = 1 A x + 0 y), CSR with 32-bit offsets and columns, in double.
void time_cusparse(benchmark::State& state, const spmv_case& c) {
  const auto& host = c.load(state.range(0));
  problem p(host);
  cusparseHandle_t sparse = nullptr;
  check_cusparse(cusparseCreate(&sparse), "cusparseCreate");
  check_cusparse(cusparseSetStream(sparse, cudaStreamPerThread), "cusparseSetStream");
  cusparseSpMatDescr_t descriptor = nullptr;
  cusparseDnVecDescr_t vec_x = nullptr;
  cusparseDnVecDescr_t vec_y = nullptr;
  check_cusparse(
      cusparseCreateCsr(&descriptor, host.a.rows, host.a.cols, host.a.nnz(), p.row_offsets.data(), p.columns.data(),
                        p.values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
      "cusparseCreateCsr");
  check_cusparse(cusparseCreateDnVec(&vec_x, host.a.cols, p.x.data(), CUDA_R_64F), "cusparseCreateDnVec");
  check_cusparse(cusparseCreateDnVec(&vec_y, host.a.rows, p.y.data(), CUDA_R_64F), "cusparseCreateDnVec");
  const double one = 1.0;
  const double zero = 0.0;
  std::size_t bytes = 0;
  check_cusparse(cusparseSpMV_bufferSize(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, descriptor, vec_x, &zero,
                                         vec_y, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
                 "cusparseSpMV_bufferSize");
  const device_buffer<unsigned char> workspace(std::max<std::size_t>(bytes, 1));
  time_on_stream(state, cudaStreamPerThread, spmv_bytes_floor(host.a), [&] {
    check_cusparse(cusparseSpMV(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, descriptor, vec_x, &zero, vec_y,
                                CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, workspace.data()),
                   "cusparseSpMV");
  });
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  check_elements(state, p.y.data(), host.a.rows, spmv_expected_y{p.expected.data()}, "y = A x");
  record_spmv(state, host.a);
  (void)cusparseDestroyDnVec(vec_y);
  (void)cusparseDestroyDnVec(vec_x);
  (void)cusparseDestroySpMat(descriptor);
  (void)cusparseDestroy(sparse);
}

}  // namespace

void register_spmv_benchmarks(bool smoke) {
  for (const auto& c : spmv_cases()) {
    // Size by size, the vendor first: a size's rows share one assembled matrix (spmv_case::load keeps the last).
    for (const auto m : c.sizes(smoke)) {
      add_timed("native/spmv/cusparse/" + c.name + "/double", m, time_cusparse, c);
      for (const auto strategy : ksync::ids_of_half<ksync::spmv_strategy>(ksync::strategy_half::native))
        add_timed("native/spmv/" + std::string(ksync::to_string(strategy)) + "/" + c.name + "/double", m, time_ksync, c,
                  strategy);
    }
  }
}

}  // namespace ksync::bench
