// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The device work of one rank in a distributed product or solve (ksync/cuda/mpi/spmv.hpp, ksync/cuda/mpi/cg.hpp):
// kernels over the rank's own rows, compiled into ksync::cuda_native (src/detail/distributed_rows.cu) for float
// and double with every (Index, Offset) pair csr_matrix takes, so that the MPI layer above them is plain C++.
// Private to the native half. Each call is asynchronous on `stream`; sums land in device memory.
#pragma once

#include <ksync/cg_pipelined.hpp>
#include <ksync/cg_types.hpp>
#include <ksync/cuda/csr_matrix.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ksync::cuda::detail::distributed {

// Local rows of one kind (interior or boundary), ascending: [first, first + count) when `list` is null (the
// rows are one run), else list[0 .. count) (device memory).
struct row_set {
  const std::int64_t* list = nullptr;
  std::int64_t first = 0;
  std::int64_t count = 0;
};

// y[i] = row i of A x for each row i of `rows`, summed in its storage order (csr_row_apply, as spmv's
// row_per_thread): the rows equal the one-rank product's bits. Where `done` (device memory: a solve's
// cg_scalars::done) is not null, the kernel does nothing once *done is set: a solve whose scalars stay on the device
// enqueues iterations past its end.
template <class T, class Index, class Offset>
void multiply_rows(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, row_set rows, const T* x, T* y,
                   const int* done = nullptr);

// The same, x's ghosts (local columns owned and up) read from `ghosts` where they arrived instead of from x.
template <class T, class Index, class Offset>
void multiply_rows(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, row_set rows, const T* x,
                   const T* ghosts, std::int64_t owned, T* y);

// out[k] = x[indices[k]] for k < count: the entries a rank sends. `out` may be pinned host memory.
template <class T>
void gather(cudaStream_t stream, const T* x, const std::int64_t* indices, std::int64_t count, T* out,
            const int* done = nullptr);

// inverse[i] = 1 / A(i, i) for the a.rows() local rows (local row i's diagonal is local column i: a rank's own
// columns come first), NaN where the entry is zero, negative or not finite (jacobi_inverse).
template <class T, class Index, class Offset>
void inverse_diagonal(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, T* inverse);

// CG's local steps over a rank's n rows, with M^-1's entries `inverse` (null: the identity).
//   start      r = b - product; where preconditioned_r is not null, preconditioned_r = M^-1 r; *rr = r . M^-1 r,
//              *bb = b . M^-1 b, *check = the diagonal's check (0, or NaN where an entry of M^-1 is NaN).
//   direction  p = M^-1 r + beta p, or p = M^-1 r where `first` (p's old entries are then not read).
//   dot        *sum = u . v (nothing added once *done is set, where done is not null: as multiply_rows).
//   update     x += alpha p, r -= alpha ap, *sum = r . M^-1 r of the new r.
template <class T>
void cg_start_rows(cudaStream_t stream, std::int64_t n, const T* b, const T* product, T* r, const T* inverse,
                   T* preconditioned_r, T* rr, T* bb, T* check);
template <class T>
void cg_direction_rows(cudaStream_t stream, std::int64_t n, T beta, const T* r, const T* inverse, T* p, bool first);
template <class T>
void cg_dot_rows(cudaStream_t stream, std::int64_t n, const T* u, const T* v, T* sum, const int* done = nullptr);
template <class T>
void cg_update_rows(cudaStream_t stream, std::int64_t n, T alpha, const T* p, const T* ap, T* x, T* r, const T* inverse,
                    T* sum);

// The pipelined recurrence's local steps (ksync/cg_pipelined.hpp), v.w.even == v.w.odd (w updated in place:
// the product that reads it ran before), `input` M^-1 w for the next product (null without Jacobi: the product
// reads w itself).
//   start  w = product (= A M^-1 r), input = M^-1 w, z = s = p = 0, *sum = w . M^-1 r.
//   pass   the iteration's updates with n = product, input = M^-1 w of the new w; sums[0] = r . M^-1 r and
//          sums[1] = w . M^-1 r of the new r and w.
template <class T>
void cg_pipelined_start_rows(cudaStream_t stream, std::int64_t n, const T* product,
                             const ksync::detail::cg_pipelined_vectors<T>& v, T* input, T* sum);
template <class T>
void cg_pipelined_pass_rows(cudaStream_t stream, std::int64_t n, const T* product,
                            const ksync::detail::cg_pipelined_vectors<T>& v, T* input, T alpha, T beta, T* sums);

// The classic steps whose scalars stay on the device (the NCCL form of ksync::cuda::mpi::cg): they read alpha and
// beta from `state` (ksync/cg_types.hpp) and leave every vector alone once state->done is set.
//   state_start    the start's test (cg_start) on the global sums in state->rho, rho_next and p_ap;
//   direction      p = M^-1 r + state->beta p;
//   update         x += alpha p, r -= alpha ap with alpha = state->rho / state->p_ap, *sum = r . M^-1 r (0 once
//                  done: nothing reads it then);
//   state_advance  the iteration's scalar step (cg_advance) once the global r . M^-1 r is in state->rho_next.
template <class T>
void cg_state_start(cudaStream_t stream, ksync::detail::cg_scalars<T>* state, const ksync::detail::cg_start_step& step,
                    double* history);
template <class T>
void cg_state_direction_rows(cudaStream_t stream, std::int64_t n, const ksync::detail::cg_scalars<T>* state, const T* r,
                             const T* inverse, T* p);
template <class T>
void cg_state_update_rows(cudaStream_t stream, std::int64_t n, const ksync::detail::cg_scalars<T>* state, const T* p,
                          const T* ap, T* x, T* r, const T* inverse, T* sum);
template <class T>
void cg_state_advance(cudaStream_t stream, ksync::detail::cg_scalars<T>* state, double tolerance, int max_iterations,
                      double* history);

}  // namespace ksync::cuda::detail::distributed
