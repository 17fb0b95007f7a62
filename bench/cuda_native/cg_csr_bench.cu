// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Conjugate gradients on assembled sparse matrices (CSR, double, 32-bit indices; bench/sparse.hpp): every
// native form of ksync::cuda::cg on a ksync::cuda::csr_matrix, and the CG NVIDIA's samples write with
// cuSPARSE's SpMV and cuBLAS in host pointer mode (both dots come home every iteration) — the vendor anchor.
// As the stencil rows (cg_bench.cu): a fixed number of iterations from x = 0 (a file's matrix: to
// convergence, bench/sparse.hpp), timed host to host;
// seconds_per_iteration is a solve over its iterations; bytes_per_iteration counts the matrix once and the
// vector passes (bench/sparse.hpp). The portable forms are in bench/cg_bench.cpp's twin, cg_csr_bench.cpp.
#include "../sparse.hpp"
#include "native.cuh"

#include <ksync/cuda/csr_matrix.hpp>
#include <ksync/cuda/device/cg.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>

#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cusparse.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ksync::cg_form;
using ksync::cuda::device_buffer;

void check_cusparse(cusparseStatus_t status, const char* call) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cusparseGetErrorString(status));
}
void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: status " + std::to_string(status));
}

// A host matrix's arrays on the device, the native matrix over them, and the right-hand side.
struct problem {
  explicit problem(const ksync::host_csr_matrix<double, std::int32_t>& host)
      : row_offsets(host.row_offsets),
        columns(host.columns),
        values(host.values),
        a(cudaStreamPerThread, host.rows, host.cols, host.nnz(), row_offsets.data(), columns.data(), values.data()),
        b(ksync::bench::make_input<double>(host.rows)),
        x(static_cast<std::size_t>(host.rows)) {}
  device_buffer<std::int32_t> row_offsets;
  device_buffer<std::int32_t> columns;
  device_buffer<double> values;
  ksync::cuda::csr_matrix<double> a;
  device_buffer<double> b;
  device_buffer<double> x;
};

// ||b - A x|| / ||b|| from scratch, in double.
__global__ void residual_squares(ksync::cuda::csr_matrix<double> a, const double* b, const double* x, double* sums) {
  double residual = 0;
  double scale = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < a.rows();
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const double r = b[i] - a([x](std::int64_t j) { return x[j]; }, i);
    residual += r * r;
    scale += b[i] * b[i];
  }
  atomicAdd(&sums[0], residual);
  atomicAdd(&sums[1], scale);
}
double true_residual(const problem& p) {
  device_buffer<double> sums(std::vector<double>{0.0, 0.0});
  residual_squares<<<264, 256, 0, cudaStreamPerThread>>>(p.a, p.b.data(), p.x.data(), sums.data());
  KSYNC_CUDA_CHECK(cudaGetLastError());
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  const auto host = sums.to_host();
  return std::sqrt(host[0] / host[1]);
}

void time_ksync(benchmark::State& state, const ksync::bench::csr_case& matrix, ksync::bench::cg_csr_variant variant,
                cg_form form, int iterations) {
  if (ksync::bench::refuses_cg_form(state, form)) return;
  const auto& host = matrix.load(state.range(0));
  problem p(host);
  ksync::cuda::cg_solver<double> solver(p.a);
  const ksync::cg_options options = matrix.options(iterations, variant.preconditioner, variant.recurrence);
  ksync::cg_result result;
  ksync::bench::time_solves(state, [&] {
    KSYNC_CUDA_CHECK(cudaMemsetAsync(p.x.data(), 0, p.x.size() * sizeof(double), cudaStreamPerThread));
    return result = solver.solve(cudaStreamPerThread, p.a, p.b.data(), p.x.data(), form, options);
  });
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  ksync::bench::check_cg_solve(state, result.iterations, matrix.file.empty() ? iterations : result.iterations,
                               result.relative_residual, true_residual(p));
  ksync::bench::record_cg(state, state.range(0), result.iterations, false);
  state.counters["unknowns"] = static_cast<double>(host.rows);
  state.counters["bytes_per_iteration"] = ksync::bench::cg_csr_bytes_per_iteration(
      host, ksync::runs_fused_pass(form), variant.jacobi(), variant.pipelined());
}

// The CG of NVIDIA's conjugateGradient sample: cusparseSpMV for A p, cublasDdot for p.Ap and r.r into host
// scalars (host pointer mode: each blocks), cublasDaxpy / cublasDscal for the vector updates.
void time_cusparse_cublas(benchmark::State& state, const ksync::bench::csr_case& matrix, int iterations) {
  const auto& host = matrix.load(state.range(0));
  problem p(host);
  const auto n = static_cast<int>(host.rows);
  device_buffer<double> r(static_cast<std::size_t>(n)), d(static_cast<std::size_t>(n)), ad(static_cast<std::size_t>(n));
  cublasHandle_t blas = nullptr;
  cusparseHandle_t sparse = nullptr;
  check_cublas(cublasCreate(&blas), "cublasCreate");
  check_cusparse(cusparseCreate(&sparse), "cusparseCreate");
  check_cublas(cublasSetStream(blas, cudaStreamPerThread), "cublasSetStream");
  check_cusparse(cusparseSetStream(sparse, cudaStreamPerThread), "cusparseSetStream");
  cusparseSpMatDescr_t descriptor = nullptr;
  cusparseDnVecDescr_t vec_d = nullptr;
  cusparseDnVecDescr_t vec_ad = nullptr;
  check_cusparse(
      cusparseCreateCsr(&descriptor, n, n, host.nnz(), p.row_offsets.data(), p.columns.data(), p.values.data(),
                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
      "cusparseCreateCsr");
  check_cusparse(cusparseCreateDnVec(&vec_d, n, d.data(), CUDA_R_64F), "cusparseCreateDnVec");
  check_cusparse(cusparseCreateDnVec(&vec_ad, n, ad.data(), CUDA_R_64F), "cusparseCreateDnVec");
  const double one = 1.0;
  const double zero = 0.0;
  std::size_t bytes = 0;
  check_cusparse(cusparseSpMV_bufferSize(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, descriptor, vec_d, &zero,
                                         vec_ad, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
                 "cusparseSpMV_bufferSize");
  const device_buffer<unsigned char> workspace(std::max<std::size_t>(bytes, 1));
  double recurrence = 0;
  int ran = 0;
  const auto solve = [&] {
    KSYNC_CUDA_CHECK(cudaMemsetAsync(p.x.data(), 0, p.x.size() * sizeof(double), cudaStreamPerThread));
    KSYNC_CUDA_CHECK(cudaMemcpyAsync(r.data(), p.b.data(), r.size() * sizeof(double), cudaMemcpyDeviceToDevice,
                                     cudaStreamPerThread));
    double rho = 0;
    check_cublas(cublasDdot(blas, n, r.data(), 1, r.data(), 1, &rho), "cublasDdot");
    const double b_norm = std::sqrt(rho);
    double rho_old = 0;
    ran = 0;
    for (int k = 0; k < iterations && std::sqrt(rho) / b_norm > matrix.tolerance(); ++k, ++ran) {
      if (k == 0) {
        check_cublas(cublasDcopy(blas, n, r.data(), 1, d.data(), 1), "cublasDcopy");
      } else {
        const double beta = rho / rho_old;
        check_cublas(cublasDscal(blas, n, &beta, d.data(), 1), "cublasDscal");
        check_cublas(cublasDaxpy(blas, n, &one, r.data(), 1, d.data(), 1), "cublasDaxpy");
      }
      check_cusparse(cusparseSpMV(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, descriptor, vec_d, &zero, vec_ad,
                                  CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, workspace.data()),
                     "cusparseSpMV");
      double d_ad = 0;
      check_cublas(cublasDdot(blas, n, d.data(), 1, ad.data(), 1, &d_ad), "cublasDdot");
      const double alpha = rho / d_ad;
      const double minus_alpha = -alpha;
      check_cublas(cublasDaxpy(blas, n, &alpha, d.data(), 1, p.x.data(), 1), "cublasDaxpy");
      check_cublas(cublasDaxpy(blas, n, &minus_alpha, ad.data(), 1, r.data(), 1), "cublasDaxpy");
      rho_old = rho;
      check_cublas(cublasDdot(blas, n, r.data(), 1, r.data(), 1, &rho), "cublasDdot");
    }
    return recurrence = std::sqrt(rho) / b_norm;
  };
  ksync::bench::time_solves(state, solve);
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  ksync::bench::check_cg_solve(state, ran, matrix.file.empty() ? iterations : ran, recurrence, true_residual(p));
  ksync::bench::record_cg(state, state.range(0), ran, false);
  state.counters["unknowns"] = static_cast<double>(host.rows);
  state.counters["bytes_per_iteration"] = ksync::bench::cg_csr_bytes_per_iteration(host, false);
  (void)cusparseDestroyDnVec(vec_ad);
  (void)cusparseDestroyDnVec(vec_d);
  (void)cusparseDestroySpMat(descriptor);
  (void)cusparseDestroy(sparse);
  (void)cublasDestroy(blas);
}

}  // namespace

void ksync::bench::register_cg_csr_benchmarks(bool smoke, const std::string& matrix_file) {
  const int iterations = cg_iterations(smoke);
  for (const auto& matrix_case : cg_csr_cases(matrix_file)) {
    const std::string matrix = matrix_case.name();
    // Size by size, as the portable suite: a size's rows share one assembled matrix (csr_case::load keeps
    // the last), and each comparison's rows run close together.
    for (const auto m : cg_csr_sizes(matrix_case, smoke)) {
      add_timed("native/cg_csr/" + matrix + "/cusparse_cublas/double", m, time_cusparse_cublas, matrix_case,
                iterations);
      for (const auto& variant : cg_csr_variants(matrix_case)) {
        for (const auto form : ksync::ids_of_half<cg_form>(ksync::strategy_half::native)) {
          if (!variant.runs(form)) continue;
          add_timed(
              "native/cg_csr/" + cg_csr_prefix(matrix_case, variant) + std::string(ksync::to_string(form)) + "/double",
              m, time_ksync, matrix_case, variant, form, iterations);
        }
      }
    }
  }
}
