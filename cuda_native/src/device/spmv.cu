// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::spmv for float and double with every (Index, Offset) pair ksync::cuda::csr_matrix takes.
#include <ksync/cuda/detail/spmv/strategies.cuh>
#include <ksync/cuda/device/spmv.hpp>
#include <ksync/detail/arguments.hpp>
#include <ksync/detail/spmv_choice.hpp>
#include "csr_instances.hpp"

#include <cstdint>

namespace ksync::cuda {

template <class T, class Index, class Offset>
void spmv(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, const T* x, T* y, spmv_strategy strategy) {
  constexpr const char* where = "ksync::cuda::spmv";
  using ksync::detail::check_argument;
  ksync::detail::check_spmv_strategy(where, strategy, strategy_half::native);
  check_argument(x != nullptr || a.cols() == 0, where, "x is null but a has ", a.cols(), " columns");
  check_argument(y != nullptr || a.rows() == 0, where, "y is null but a has ", a.rows(), " rows");
  // A matrix made by already_checked() was not checked for null arrays, as the constructor checks them.
  check_argument(a.row_offsets() != nullptr || a.rows() == 0, where, "a.row_offsets() is null but a has ", a.rows(),
                 " rows");
  check_argument((a.columns() != nullptr && a.values() != nullptr) || a.nnz() == 0, where,
                 "a.columns() or a.values() is null but a has ", a.nnz(), " entries");
  ksync::detail::check_spmv_disjoint(where, x, static_cast<std::size_t>(a.cols()) * sizeof(T), y,
                                     static_cast<std::size_t>(a.rows()) * sizeof(T));
  if (a.rows() == 0) return;
  detail::native_spmv_strategies::dispatch(
      where, ksync::detail::spmv_choice(strategy, strategy_half::native, /*on_gpu=*/true, a.rows(), a.nnz()),
      [&]<class Strategy>() { Strategy::launch(stream, a, x, y); });
}

#define KSYNC_SPMV(T, Index, Offset) \
  template void spmv(cudaStream_t, const csr_matrix<T, Index, Offset>&, const T*, T*, spmv_strategy);
KSYNC_FOR_EACH_CSR_INSTANCE(KSYNC_SPMV)
#undef KSYNC_SPMV

}  // namespace ksync::cuda
