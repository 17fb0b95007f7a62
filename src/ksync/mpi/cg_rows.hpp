// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A rank's rows in the distributed CG's steps (ksync/mpi/cg.hpp): its work Views and the functors its
// reductions run over the rows (the classic update, the pipelined pass), as the native half's
// cuda_native/src/detail/distributed_rows.cu. Private to ksync::mpi::cg.
#pragma once

#include <ksync/backend.hpp>
#include <ksync/cg_classic.hpp>
#include <ksync/cg_pipelined.hpp>
#include <ksync/detail/cg/pipelined_kernels.hpp>  // update_block_on_host
#include <ksync/detail/lanes.hpp>
#include <ksync/mpi/spmv.hpp>  // without_dot

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ksync::mpi::detail {

// M^-1's entry at a local row: 1 / diag(A) with Jacobi, 1 without (inverse is then empty).
template <class View>
struct weight_of {
  View inverse;
  KOKKOS_FUNCTION typename View::value_type operator()(std::int64_t i) const {
    return inverse.extent(0) > 0 ? inverse(i) : typename View::value_type(1);
  }
};

// A lane's rows (rows_as_lanes) in the classic update (ksync/cg_classic.hpp), summing the new r . M^-1 r. A
// functor: nvcc takes no extended lambda inside the generic lambda that picks Weighted.
template <class T, class XView, bool Weighted>
struct classic_update_of_rank {
  XView x;  // strided or not
  T* r;
  const T* p;
  const T* ap;
  const T* inverse_diagonal;  // read only where Weighted
  T alpha;
  ksync::detail::lane_split lanes;
  KOKKOS_FUNCTION void operator()(std::int64_t lane, T& sum) const {
    ksync::detail::fold_lane(lanes, lane, sum, [&](std::int64_t i) {
      return ksync::detail::cg_classic_update<Weighted>(x, r, p, ap, inverse_diagonal, alpha, i);
    });
  }
};

// The work Views of a distributed solve: p spans the local columns (the product fills its ghosts); r, Ap and
// M^-1's entries (empty without Jacobi) are this rank's rows; on host backends p_ap_shares the product's two
// shares of this rank's p . Ap (spmv.hpp, without_dot), made with zeros (empty on device backends).
template <class Vector>
struct cg_vectors {
  Vector p;
  Vector r;
  Vector ap;
  Vector inverse;
  Kokkos::View<typename Vector::non_const_value_type*, Kokkos::HostSpace> p_ap_shares;
};

// What the classic iteration's product sums besides Ap: p . Ap into its shares on host backends, nothing on devices.
template <class ExecutionSpace, class Vector>
auto p_ap_in_the_product(const cg_vectors<Vector>& v) {
  if constexpr (runs_on_host<ExecutionSpace>) {
    return v.p_ap_shares;
  } else {
    return without_dot{};
  }
}

// The pipelined recurrence's vectors on this rank (ksync/cg_pipelined.hpp): `input` is what the next product
// reads, M^-1 w with Jacobi (its own View) and w itself without (then the same View as w); both w and input
// span the local columns, r, z, s, p and n (the product's result) this rank's rows.
template <class Vector>
struct cg_pipelined_vectors_of_rank {
  Vector r, w, input, z, s, p, n, inverse;
};

// A lane's rows (rows_as_lanes) in an iteration's pass: each row's updates (cg_pipelined_update, n_i from the
// product before it), with Jacobi M^-1 w of the new w, which the next product reads, and the lane's two sums.
// Host backends update a chunk in blocks (update_block_on_host, as ksync::cg's pass: its loop vectorizes).
template <class T, bool Weighted>
struct pipelined_pass_of_rank {
  ksync::detail::cg_pipelined_vectors<T> v;
  const T* product;
  T* input;
  T alpha;
  T beta;
  ksync::detail::lane_split lanes;

  ksync::detail::cg_sum_pair<T> on_host(std::int64_t lane) const {
    ksync::detail::cg_sum_pair<T> lane_sums;
    lanes.for_each_block(lane, ksync::detail::host_block, [&](std::int64_t first, std::int64_t count) {
      lane_sums += ksync::detail::cg::update_block_on_host<Weighted>(v, v.w.even, v.w.even, alpha, beta,
                                                                     product + first, first, count);
      if constexpr (Weighted) {
        KSYNC_INDEPENDENT_ITERATIONS
        for (std::int64_t i = first; i < first + count; ++i)
          input[i] = v.inverse_diagonal[i] * v.w.even[i];
      }
    });
    return lane_sums;
  }

  KOKKOS_FUNCTION void operator()(std::int64_t lane, T& rho, T& delta) const {
    ksync::detail::cg_sum_pair<T> lane_sums;
    if (lanes.chunk != 0) {
      KOKKOS_IF_ON_HOST((lane_sums = on_host(lane);))
    } else {
      lanes.for_each(lane, [&](std::int64_t i) {
        lane_sums += ksync::detail::cg_pipelined_update<Weighted>(v, v.w.even, v.w.even, alpha, beta, product[i], i,
                                                                  Weighted ? input : nullptr);
      });
    }
    rho += lane_sums.rho;
    delta += lane_sums.delta;
  }
};

}  // namespace ksync::mpi::detail
