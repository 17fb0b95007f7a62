// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::csr_matrix (csr_matrix.hpp): the structural check at construction, on the device.
#include <ksync/csr.hpp>
#include <ksync/cuda/csr_matrix.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/grid/stride.cuh>
#include <ksync/cuda/runtime.hpp>

#include <algorithm>
#include <cstdint>

namespace ksync::cuda {
namespace detail {
namespace {

// The first faulty row (ksync::detail::csr_row_fault's code), as an atomic minimum: every row is checked, the
// smallest code wins whatever order the rows are checked in.
template <class Offset, class Index>
__global__ void find_csr_fault(const Offset* row_offsets, const Index* columns, std::int64_t rows, std::int64_t cols,
                               std::int64_t nnz, unsigned long long* first) {
  for (std::int64_t i = grid_stride_begin(); i < rows; i += grid_stride()) {
    const std::int64_t fault = ksync::detail::csr_row_fault(row_offsets, columns, rows, cols, nnz, i);
    if (fault != ksync::detail::csr_no_fault) atomicMin(first, static_cast<unsigned long long>(fault));
  }
}

}  // namespace
}  // namespace detail

template <class T, class Index, class Offset>
csr_matrix<T, Index, Offset>::csr_matrix(cudaStream_t stream, std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                                         const Offset* row_offsets, const Index* columns, const T* values)
    : rows_(rows), cols_(cols), nnz_(nnz), row_offsets_(row_offsets), columns_(columns), values_(values) {
  constexpr const char* where = "ksync::cuda::csr_matrix";
  ksync::detail::check_csr_extents(where, rows, cols, rows + 1, nnz, nnz);
  ksync::detail::check_argument(nnz >= 0, where, "nnz = ", nnz, " is negative");
  ksync::detail::check_argument(row_offsets != nullptr, where, "row_offsets is null");
  ksync::detail::check_argument(nnz == 0 || (columns != nullptr && values != nullptr), where,
                                "columns or values is null with nnz = ", nnz);
  if (rows == 0) return;
  const device_guard on(stream_device(stream));
  device_buffer<unsigned long long> first(1, where);
  const auto none = static_cast<unsigned long long>(ksync::detail::csr_no_fault);
  KSYNC_CUDA_CHECK(cudaMemcpyAsync(first.data(), &none, sizeof(none), cudaMemcpyHostToDevice, stream));
  constexpr int block = 256;
  const auto blocks = static_cast<unsigned int>(std::clamp<std::int64_t>((rows + block - 1) / block, 1, 4096));
  detail::find_csr_fault<<<blocks, block, 0, stream>>>(row_offsets, columns, rows, cols, nnz, first.data());
  KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::csr_matrix find_csr_fault");
  unsigned long long found = none;
  KSYNC_CUDA_CHECK(cudaMemcpyAsync(&found, first.data(), sizeof(found), cudaMemcpyDeviceToHost, stream));
  KSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));  // blocking by design: the check's verdict is a host value
  ksync::detail::check_csr_fault(where, static_cast<std::int64_t>(found), cols, nnz);
}

template class csr_matrix<float, std::int32_t, std::int32_t>;
template class csr_matrix<float, std::int32_t, std::int64_t>;
template class csr_matrix<float, std::int64_t, std::int64_t>;
template class csr_matrix<double, std::int32_t, std::int32_t>;
template class csr_matrix<double, std::int32_t, std::int64_t>;
template class csr_matrix<double, std::int64_t, std::int64_t>;

}  // namespace ksync::cuda
