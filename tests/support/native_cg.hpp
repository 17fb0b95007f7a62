// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the native CG tests share: a host CSR matrix's arrays copied to the device with the native matrix over
// them (checked when made), the solve of a case (support/cg_case.hpp) by ksync::cuda::cg, a host matrix's
// solve held to the host reference, and the grid shapes the persistent kernels are tried on.
#pragma once

#include "cg_case.hpp"
#include "gpu.hpp"

#include <ksync/cg_types.hpp>
#include <ksync/csr.hpp>
#include <ksync/cuda/csr_matrix.hpp>
#include <ksync/cuda/device/cg.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace ksync::test {

template <class T, class Index, class Offset>
struct device_matrix {
  explicit device_matrix(const ksync::host_csr_matrix<T, Index, Offset>& host)
      : row_offsets(host.row_offsets),
        columns(host.columns),
        values(host.values),
        a(cudaStreamPerThread, host.rows, host.cols, host.nnz(), row_offsets.data(), columns.data(), values.data()) {}
  ksync::cuda::device_buffer<Offset> row_offsets;
  ksync::cuda::device_buffer<Index> columns;
  ksync::cuda::device_buffer<T> values;
  ksync::cuda::csr_matrix<T, Index, Offset> a;
};

// c solved by ksync::cuda::cg on cudaStreamPerThread; a is m (the built-in stencil) or a native matrix.
template <class T, class Operator>
std::pair<ksync::cg_result, std::vector<T>> solve_case(const Operator& a, const cg_case<T>& c, ksync::cg_form form,
                                                       const ksync::cg_options& options,
                                                       const ksync::cuda::cg_tuning& tuning = {}) {
  const ksync::cuda::device_buffer<T> b(c.b);
  ksync::cuda::device_buffer<T> x(c.x0);
  const ksync::cg_result result = ksync::cuda::cg(cudaStreamPerThread, a, b.data(), x.data(), form, options, tuning);
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  return {result, x.to_host()};
}

// host solved as a native matrix in `form` and held to the host reference.
template <class T, class Index, class Offset>
void expect_csr_solves(const host_csr_matrix<T, Index, Offset>& host, ksync::cg_form form,
                       ksync::cg_preconditioner preconditioner = ksync::cg_preconditioner::none,
                       ksync::cg_recurrence recurrence = ksync::cg_recurrence::classic,
                       const ksync::cuda::cg_tuning& tuning = {}) {
  const device_matrix<T, Index, Offset> matrix(host);
  const auto c = sparse_case(host, 13u, 40, preconditioner);
  auto options = c.options(4);
  options.recurrence = recurrence;
  const auto [result, x] = solve_case(matrix.a, c, form, options, tuning);
  expect_agrees(c, result, x, sparse_agreement<T>(recurrence, c.reference.iterations));
}

// ksync::cuda's forms whose row `keep` selects (ksync::runs_in_one_launch, ksync::replays_a_graph, ...), in
// the enum's order, less those this device refuses (support/gpu.hpp, refused_here: persistent_cluster where
// clusters cannot run; CgClusterRefusalGpu checks that refusal): what a test of a property loops over, so
// that a new form with it is tested too.
inline std::vector<ksync::cg_form> native_forms_where(bool (*keep)(ksync::cg_form)) {
  std::vector<ksync::cg_form> forms;
  for (const auto form : ksync::implementations_of_half<ksync::cg_form>(ksync::strategy_half::native))
    if (keep(form) && !refused_here(form)) forms.push_back(form);
  return forms;
}
// Every form of ksync::cuda this device runs.
inline std::vector<ksync::cg_form> native_forms_here() {
  return native_forms_where([](ksync::cg_form) { return true; });
}

// Runs solve(tuning) on the grid shapes that change how the persistent kernels share out the work: one
// element and several per thread, the occupancy's blocks and one block per multiprocessor.
template <class Solve>
void for_each_grid_shape(Solve&& solve) {
  for (const int per_thread : {1, 64}) {
    for (const int per_multiprocessor : {0, 1}) {
      SCOPED_TRACE("elements per thread " + std::to_string(per_thread) + ", blocks per SM " +
                   std::to_string(per_multiprocessor));
      solve(ksync::cuda::cg_tuning{.elements_per_thread = per_thread, .blocks_per_multiprocessor = per_multiprocessor});
    }
  }
}

}  // namespace ksync::test
