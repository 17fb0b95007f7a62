// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::cg on ksync::cuda::csr_matrix, for every value type and (Index, Offset) pair the matrix takes
// (the solver itself: cg_solver.cuh).
#include "cg_solver.cuh"
#include "csr_instances.hpp"

namespace ksync::cuda {

template <class T, class Index, class Offset>
cg_result cg(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, const T* b, T* x, cg_form form,
             const cg_options& options, const cg_tuning& tuning) {
  detail::check_matrix_extent(a);
  const int device = stream_device(stream);
  const device_guard on(device);  // the buffers go where the stream runs
  cg_solver<T>& solver =
      detail::kept_solver<T, csr_matrix<T, Index, Offset>>(a.rows(), device, [&] { return cg_solver<T>(a); });
  return solver.solve(stream, a, b, x, form, options, tuning);
}

#define KSYNC_CG_ON_CSR(T, Index, Offset)                                                                            \
  template cg_solver<T>::cg_solver(const csr_matrix<T, Index, Offset>&);                                             \
  template cg_result cg_solver<T>::solve(cudaStream_t, const csr_matrix<T, Index, Offset>&, const T*, T*, cg_form,   \
                                         const cg_options&, const cg_tuning&);                                       \
  template cg_result cg(cudaStream_t, const csr_matrix<T, Index, Offset>&, const T*, T*, cg_form, const cg_options&, \
                        const cg_tuning&);
KSYNC_FOR_EACH_CSR_INSTANCE(KSYNC_CG_ON_CSR)
#undef KSYNC_CG_ON_CSR

}  // namespace ksync::cuda
