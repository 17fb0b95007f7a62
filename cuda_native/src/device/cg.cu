// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::cg on the built-in 2-D Poisson operator (the solver itself: cg_solver.cuh).
#include "cg_solver.cuh"

namespace ksync::cuda {

template <class T>
cg_result cg(cudaStream_t stream, std::int64_t m, const T* b, T* x, cg_form form, const cg_options& options,
             const cg_tuning& tuning) {
  detail::check_extent(m);
  const int device = stream_device(stream);
  const device_guard on(device);  // the buffers go where the stream runs
  cg_solver<T>& solver =
      detail::kept_solver<T, detail::cg_kernels::poisson_rows>(m * m, device, [&] { return cg_solver<T>(m); });
  return solver.solve(stream, b, x, form, options, tuning);
}

template class cg_solver<float>;
template class cg_solver<double>;
template cg_result cg(cudaStream_t, std::int64_t, const float*, float*, cg_form, const cg_options&, const cg_tuning&);
template cg_result cg(cudaStream_t, std::int64_t, const double*, double*, cg_form, const cg_options&, const cg_tuning&);

}  // namespace ksync::cuda
