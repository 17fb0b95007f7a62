// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One rank's device work in a distributed product or solve (ksync/cuda/detail/distributed/rows.hpp), for float and
// double with every (Index, Offset) pair csr_matrix takes.
#include <ksync/cg_classic.hpp>
#include <ksync/cg_pipelined.hpp>
#include <ksync/cuda/detail/cg/kernels.cuh>  // start_kernel, advance_kernel
#include <ksync/cuda/detail/distributed/rows.hpp>
#include <ksync/cuda/device/parallel_for.cuh>
#include <ksync/cuda/device/parallel_reduce.cuh>
#include <ksync/cuda/device/reduce.hpp>  // dot
#include <ksync/cuda/error.hpp>
#include <ksync/stencil.hpp>  // jacobi_inverse
#include "../device/csr_instances.hpp"

#include <cstddef>
#include <cstdint>

namespace ksync::cuda::detail::distributed {

namespace {

// M^-1's entry i: inverse[i], or 1 without a preconditioner.
template <class T>
struct weight {
  const T* inverse;
  __device__ T operator()(std::int64_t i) const { return inverse == nullptr ? T(1) : inverse[i]; }
};

// Whether a solve whose scalars stay on the device has ended (null: a step that always runs).
__device__ inline bool ended(const int* done) {
  return done != nullptr && *done != 0;
}

// Entry j of x's local columns: x's own entries through the read-only path, and where the ghosts were read where
// they arrived (pinned host memory, staged) the ones from `owned` on with plain loads there. The plain product
// passes owned = a.cols(), so every entry is x's.
template <class T>
struct split_reader {
  const T* x;
  const T* ghosts;
  std::int64_t owned;
  __device__ T operator()(std::int64_t j) const { return j < owned ? __ldg(x + j) : ghosts[j - owned]; }
};

// y[i] = row i of A x for the rows of a row set, nothing once the solve ended.
template <class T, class Index, class Offset>
struct rows_product {
  csr_matrix<T, Index, Offset> a;
  row_set rows;
  split_reader<T> x;
  T* y;
  const int* done;
  __device__ void operator()(std::int64_t k) const {
    if (ended(done)) return;
    const std::int64_t i = rows.list == nullptr ? rows.first + k : rows.list[k];
    y[i] = a(x, i);
  }
};

template <class T>
struct gathered {
  const T* x;
  const std::int64_t* indices;
  T* out;
  const int* done;
  __device__ void operator()(std::int64_t k) const {
    if (!ended(done)) out[k] = x[indices[k]];
  }
};

// u . v's terms, none once the solve ended.
template <class T>
struct products_until_done {
  const T* u;
  const T* v;
  const int* done;
  __device__ void operator()(std::int64_t i, T& sum) const {
    if (!ended(done)) sum += u[i] * v[i];
  }
};

template <class T, class Index, class Offset>
struct inverted_diagonal {
  csr_matrix<T, Index, Offset> a;
  T* inverse;
  __device__ void operator()(std::int64_t i) const { inverse[i] = jacobi_inverse(a.diagonal(i)); }
};

// The start's first sum: r = b - product (and M^-1 r), r . M^-1 r.
template <class T>
struct start_residual {
  const T* b;
  const T* product;
  T* r;
  weight<T> w;
  T* preconditioned_r;
  __device__ void operator()(std::int64_t i, T& sum) const {
    const T r_i = b[i] - product[i];
    r[i] = r_i;
    const T u = w(i);
    if (preconditioned_r != nullptr) preconditioned_r[i] = u * r_i;
    sum += r_i * u * r_i;
  }
};

template <class T>
struct weighted_square {
  const T* v;
  weight<T> w;
  __device__ void operator()(std::int64_t i, T& sum) const { sum += v[i] * w(i) * v[i]; }
};

template <class T>
struct unusable_weights {
  weight<T> w;
  __device__ void operator()(std::int64_t i, T& sum) const { sum += w(i) - w(i); }  // 0, or NaN for NaN
};

// A classic step's alpha and beta: given by the host, or read from the device state (the NCCL form), where the
// steps leave every vector alone once state->done is set.
template <class T>
struct step_scalars {
  const ksync::detail::cg_scalars<T>* state;  // null: alpha and beta below
  T alpha;
  T beta;
  __device__ bool done() const { return state != nullptr && state->done != 0; }
  __device__ T alpha_now() const { return state == nullptr ? alpha : state->rho / state->p_ap; }
  __device__ T beta_now() const { return state == nullptr ? beta : state->beta; }
};

// p = M^-1 r + beta p, or M^-1 r where `first` (p's old entries not read).
template <class T>
struct direction {
  step_scalars<T> scalars;
  const T* r;
  weight<T> w;
  T* p;
  bool first;
  __device__ void operator()(std::int64_t i) const {
    if (scalars.done()) return;
    p[i] = first ? w(i) * r[i] : w(i) * r[i] + scalars.beta_now() * p[i];
  }
};

// x += alpha p, r -= alpha Ap and the new r . M^-1 r (ksync/cg_classic.hpp); once done, nothing (the sum is
// then read by nobody).
template <class T, bool Weighted>
struct update {
  step_scalars<T> scalars;
  const T* p;
  const T* ap;
  T* x;
  T* r;
  const T* inverse;
  __device__ void operator()(std::int64_t i, T& sum) const {
    if (scalars.done()) return;
    sum += ksync::detail::cg_classic_update<Weighted>(x, r, p, ap, inverse, scalars.alpha_now(), i);
  }
};

template <class T>
struct pipelined_start {
  const T* product;
  ksync::detail::cg_pipelined_vectors<T> v;
  T* input;
  __device__ void operator()(std::int64_t i, T& sum) const {
    const T w_i = product[i];
    v.w.even[i] = w_i;
    const T u = weight<T>{v.inverse_diagonal}(i);
    if (input != nullptr) input[i] = u * w_i;
    v.z[i] = 0;
    v.s[i] = 0;
    v.p[i] = 0;
    sum += w_i * u * v.r[i];
  }
};

// The pass and its first sum (r . M^-1 r); the second (w . M^-1 r) reads the new r and w after it.
template <class T, bool Weighted>
struct pipelined_pass {
  const T* product;
  ksync::detail::cg_pipelined_vectors<T> v;
  T* input;
  T alpha;
  T beta;
  __device__ void operator()(std::int64_t i, T& rho) const {
    const auto terms = ksync::detail::cg_pipelined_update<Weighted>(v, v.w.even, v.w.even, alpha, beta, product[i], i,
                                                                    Weighted ? input : nullptr);
    rho += terms.rho;
  }
};

template <class T>
struct pipelined_delta {
  ksync::detail::cg_pipelined_vectors<T> v;
  __device__ void operator()(std::int64_t i, T& delta) const {
    delta += v.w.even[i] * (weight<T>{v.inverse_diagonal}(i)*v.r[i]);
  }
};

constexpr reduce_strategy sums_by = reduce_strategy::last_block;  // one launch a sum, as ksync::cuda::cg's

}  // namespace

template <class T, class Index, class Offset>
void multiply_rows(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, row_set rows, const T* x, T* y,
                   const int* done) {
  parallel_for(stream, rows.count,
               rows_product<T, Index, Offset>{a, rows, split_reader<T>{x, nullptr, a.cols()}, y, done});
}

template <class T, class Index, class Offset>
void multiply_rows(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, row_set rows, const T* x,
                   const T* ghosts, std::int64_t owned, T* y) {
  parallel_for(stream, rows.count,
               rows_product<T, Index, Offset>{a, rows, split_reader<T>{x, ghosts, owned}, y, nullptr});
}

template <class T>
void gather(cudaStream_t stream, const T* x, const std::int64_t* indices, std::int64_t count, T* out, const int* done) {
  parallel_for(stream, count, gathered<T>{x, indices, out, done});
}

template <class T, class Index, class Offset>
void inverse_diagonal(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, T* inverse) {
  parallel_for(stream, a.rows(), inverted_diagonal<T, Index, Offset>{a, inverse});
}

template <class T>
void cg_start_rows(cudaStream_t stream, std::int64_t n, const T* b, const T* product, T* r, const T* inverse,
                   T* preconditioned_r, T* rr, T* bb, T* check) {
  const weight<T> w{inverse};
  parallel_reduce(stream, n, start_residual<T>{b, product, r, w, preconditioned_r}, rr, sums_by);
  parallel_reduce(stream, n, weighted_square<T>{b, w}, bb, sums_by);
  parallel_reduce(stream, n, unusable_weights<T>{w}, check, sums_by);
}

template <class T>
void cg_direction_rows(cudaStream_t stream, std::int64_t n, T beta, const T* r, const T* inverse, T* p, bool first) {
  parallel_for(stream, n, direction<T>{{nullptr, T(0), beta}, r, weight<T>{inverse}, p, first});
}

template <class T>
void cg_dot_rows(cudaStream_t stream, std::int64_t n, const T* u, const T* v, T* sum, const int* done) {
  if (done == nullptr) {
    dot(stream, u, v, static_cast<std::size_t>(n), sums_by, sum);
  } else {
    parallel_reduce(stream, n, products_until_done<T>{u, v, done}, sum, sums_by);
  }
}

// parallel_reduce of `update` with Weighted chosen once, not per row.
template <class T>
void update_rows(cudaStream_t stream, std::int64_t n, const step_scalars<T>& scalars, const T* p, const T* ap, T* x,
                 T* r, const T* inverse, T* sum) {
  if (inverse == nullptr) {
    parallel_reduce(stream, n, update<T, false>{scalars, p, ap, x, r, inverse}, sum, sums_by);
  } else {
    parallel_reduce(stream, n, update<T, true>{scalars, p, ap, x, r, inverse}, sum, sums_by);
  }
}

template <class T>
void cg_update_rows(cudaStream_t stream, std::int64_t n, T alpha, const T* p, const T* ap, T* x, T* r, const T* inverse,
                    T* sum) {
  update_rows(stream, n, step_scalars<T>{nullptr, alpha, T(0)}, p, ap, x, r, inverse, sum);
}

template <class T>
void cg_pipelined_start_rows(cudaStream_t stream, std::int64_t n, const T* product,
                             const ksync::detail::cg_pipelined_vectors<T>& v, T* input, T* sum) {
  parallel_reduce(stream, n, pipelined_start<T>{product, v, input}, sum, sums_by);
}

template <class T>
void cg_pipelined_pass_rows(cudaStream_t stream, std::int64_t n, const T* product,
                            const ksync::detail::cg_pipelined_vectors<T>& v, T* input, T alpha, T beta, T* sums) {
  if (v.inverse_diagonal == nullptr) {
    parallel_reduce(stream, n, pipelined_pass<T, false>{product, v, input, alpha, beta}, sums, sums_by);
  } else {
    parallel_reduce(stream, n, pipelined_pass<T, true>{product, v, input, alpha, beta}, sums, sums_by);
  }
  parallel_reduce(stream, n, pipelined_delta<T>{v}, sums + 1, sums_by);
}

template <class T>
void cg_state_start(cudaStream_t stream, ksync::detail::cg_scalars<T>* state, const ksync::detail::cg_start_step& step,
                    double* history) {
  cg_kernels::start_kernel<T><<<1, 1, 0, stream>>>(state, step, history);
  KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::mpi::cg start_kernel");
}

template <class T>
void cg_state_direction_rows(cudaStream_t stream, std::int64_t n, const ksync::detail::cg_scalars<T>* state, const T* r,
                             const T* inverse, T* p) {
  parallel_for(stream, n, direction<T>{{state, T(0), T(0)}, r, weight<T>{inverse}, p, false});
}

template <class T>
void cg_state_update_rows(cudaStream_t stream, std::int64_t n, const ksync::detail::cg_scalars<T>* state, const T* p,
                          const T* ap, T* x, T* r, const T* inverse, T* sum) {
  update_rows(stream, n, step_scalars<T>{state, T(0), T(0)}, p, ap, x, r, inverse, sum);
}

template <class T>
void cg_state_advance(cudaStream_t stream, ksync::detail::cg_scalars<T>* state, double tolerance, int max_iterations,
                      double* history) {
  cg_kernels::advance_kernel<T><<<1, 1, 0, stream>>>(state, tolerance, max_iterations, history);
  KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::mpi::cg advance_kernel");
}

#define KSYNC_DISTRIBUTED_MATRIX_ROWS(T, Index, Offset)                                                              \
  template void multiply_rows(cudaStream_t, const csr_matrix<T, Index, Offset>&, row_set, const T*, T*, const int*); \
  template void multiply_rows(cudaStream_t, const csr_matrix<T, Index, Offset>&, row_set, const T*, const T*,        \
                              std::int64_t, T*);                                                                     \
  template void inverse_diagonal(cudaStream_t, const csr_matrix<T, Index, Offset>&, T*);
KSYNC_FOR_EACH_CSR_INSTANCE(KSYNC_DISTRIBUTED_MATRIX_ROWS)
#undef KSYNC_DISTRIBUTED_MATRIX_ROWS

#define KSYNC_DISTRIBUTED_VECTOR_ROWS(T)                                                                           \
  template void gather(cudaStream_t, const T*, const std::int64_t*, std::int64_t, T*, const int*);                 \
  template void cg_start_rows(cudaStream_t, std::int64_t, const T*, const T*, T*, const T*, T*, T*, T*, T*);       \
  template void cg_state_start(cudaStream_t, ksync::detail::cg_scalars<T>*, const ksync::detail::cg_start_step&,   \
                               double*);                                                                           \
  template void cg_state_direction_rows(cudaStream_t, std::int64_t, const ksync::detail::cg_scalars<T>*, const T*, \
                                        const T*, T*);                                                             \
  template void cg_state_update_rows(cudaStream_t, std::int64_t, const ksync::detail::cg_scalars<T>*, const T*,    \
                                     const T*, T*, T*, const T*, T*);                                              \
  template void cg_state_advance(cudaStream_t, ksync::detail::cg_scalars<T>*, double, int, double*);               \
  template void cg_direction_rows(cudaStream_t, std::int64_t, T, const T*, const T*, T*, bool);                    \
  template void cg_dot_rows(cudaStream_t, std::int64_t, const T*, const T*, T*, const int*);                       \
  template void cg_update_rows(cudaStream_t, std::int64_t, T, const T*, const T*, T*, T*, const T*, T*);           \
  template void cg_pipelined_start_rows(cudaStream_t, std::int64_t, const T*,                                      \
                                        const ksync::detail::cg_pipelined_vectors<T>&, T*, T*);                    \
  template void cg_pipelined_pass_rows(cudaStream_t, std::int64_t, const T*,                                       \
                                       const ksync::detail::cg_pipelined_vectors<T>&, T*, T, T, T*);
KSYNC_DISTRIBUTED_VECTOR_ROWS(float)
KSYNC_DISTRIBUTED_VECTOR_ROWS(double)
#undef KSYNC_DISTRIBUTED_VECTOR_ROWS

}  // namespace ksync::cuda::detail::distributed
