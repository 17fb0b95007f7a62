// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The Kokkos kernels of the pipelined recurrence (cg_recurrence::pipelined; its arithmetic is the shared
// ksync/cg_pipelined.hpp): the start's w = A M^-1 r with its sum, and the one pass an iteration with its two
// sums. The same lane split as the fused steps (kernels.hpp). ksync::cuda::cg runs the same rows.
#pragma once

#include <ksync/cg_pipelined.hpp>
#include <ksync/detail/cg/kernels.hpp>

#include <cstddef>
#include <cstdint>

namespace ksync::detail::cg {

// Where a pass's two sums land: rho_next and delta, adjacent in the state.
template <class T, class MemorySpace>
using sum_pair_slot = Kokkos::View<cg_sum_pair<T>, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class T, class MemorySpace>
sum_pair_slot<T, MemorySpace> sums_of_pass(const state_view<T, MemorySpace>& state) {
  static_assert(offsetof(cg_scalars<T>, delta) == offsetof(cg_scalars<T>, rho_next) + sizeof(T) &&
                    sizeof(cg_sum_pair<T>) == 2 * sizeof(T),
                "the pipelined pass's two sums land in rho_next and delta as one cg_sum_pair");
  return sum_pair_slot<T, MemorySpace>(reinterpret_cast<cg_sum_pair<T>*>(&state.data()->rho_next));
}

// Host backends: the updates of rows [first, first + count), count <= host_block, given their n_i in n[0, count)
// (cg_pipelined_update), and the block's two sums. The loop holds no running sum, so it vectorizes: the terms
// go to local arrays, summed in chains after it (sum_in_chains). w_old and w_new may be one buffer: row i reads
// and writes index i alone. ksync::cg's pass (below) and ksync::mpi::cg's run it.
template <bool Weighted, class T>
cg_sum_pair<T> update_block_on_host(const cg_pipelined_vectors<T>& v, const T* w_old, T* w_new, T alpha, T beta,
                                    const T* n, std::int64_t first, std::int64_t count) {
  T rho_terms[host_block];  // the block's terms of r . M^-1 r and w . M^-1 r
  T delta_terms[host_block];
  KSYNC_INDEPENDENT_ITERATIONS
  for (std::int64_t k = 0; k < count; ++k) {
    const cg_sum_pair<T> terms = cg_pipelined_update<Weighted>(v, w_old, w_new, alpha, beta, n[k], first + k);
    rho_terms[k] = terms.rho;
    delta_terms[k] = terms.delta;
  }
  return {.rho = sum_in_chains<T>(0, count, [&](std::int64_t k) { return rho_terms[k]; }),
          .delta = sum_in_chains<T>(0, count, [&](std::int64_t k) { return delta_terms[k]; })};
}

// The start's second pass (after r = b - A x everywhere): w = A M^-1 r into the first iteration's w buffer,
// z = s = p = 0, summing w . M^-1 r.
template <class T, class MemorySpace, class Operator>
struct pipelined_start {
  Operator op;
  cg_pipelined_vectors<T> v;
  int first_iteration;
  lane_split split;
  KOKKOS_FUNCTION void operator()(std::int64_t lane, T& sum) const {
    T* const w = v.w.current(first_iteration);
    with_preconditioning(v.inverse_diagonal, [&](auto weighted) {
      fold_lane(split, lane, sum,
                [&](std::int64_t i) { return cg_pipelined_start_row<decltype(weighted)::value>(op, v, w, i); });
      return 0;
    });
  }
};

// One iteration's pass: alpha = rho / p.Ap and beta from the state, every update, and the new r . M^-1 r and
// w . M^-1 r into the state's rho_next and delta (a reduction of cg_sum_pair, hence init and join).
template <class T, class MemorySpace, class Operator>
struct pipelined_pass {
  using value_type = cg_sum_pair<T>;
  state_view<T, MemorySpace> state;
  Operator op;
  cg_pipelined_vectors<T> v;
  lane_split split;
  KOKKOS_FUNCTION void init(value_type& sum) const { sum = value_type{}; }
  KOKKOS_FUNCTION void join(value_type& into, const value_type& from) const { into += from; }
  KOKKOS_FUNCTION void operator()(std::int64_t lane, value_type& sum) const {
    const cg_scalars<T> s = state();
    if (s.done != 0) return;
    const T* const w_old = v.w.current(s.iteration);
    T* const w_new = v.w.next(s.iteration);
    const T alpha = s.rho / s.p_ap;
    const T beta = s.beta;
    value_type lane_sum{};  // a local, not `sum`: the stores to the vectors could alias Kokkos' accumulator
    with_preconditioning(v.inverse_diagonal, [&](auto weighted) {
      constexpr bool weighted_v = decltype(weighted)::value;
      if (split.chunk != 0) {  // host backends: one contiguous chunk per lane
        KOKKOS_IF_ON_HOST((lane_sum = by_blocks<weighted_v>(lane, w_old, w_new, alpha, beta);))
      } else {
        split.for_each(lane, [&](std::int64_t i) {
          lane_sum += cg_pipelined_row<weighted_v>(op, v, w_old, w_new, alpha, beta, i);
        });
      }
      return 0;
    });
    sum += lane_sum;
  }

  // Host backends: a lane's chunk in blocks. First the block's n = A M^-1 w_old (rows_on_host: the 2-D
  // Poisson operator's rows vectorize there; one division and four tests a row kept them scalar), then its
  // updates, twelve arrays and no boundary test (update_block_on_host). The block stays in L1. On two OpenMP
  // threads the pass runs at 1.3-2.1x the Kokkos CG at m = 256 ... 1024, where a row at a time, vectorized
  // nowhere, ran at 0.76-0.82x (docs/results/2026-12-03-cpu-7b190ac).
  template <bool Weighted>
  value_type by_blocks(std::int64_t lane, const T* w_old, T* w_new, T alpha, T beta) const {
    T n_block[host_block];  // n = A M^-1 w_old over the block
    value_type lane_sum{};
    split.for_each_block(lane, host_block, [&](std::int64_t first, std::int64_t count) {
      rows_on_host(op, preconditioned_entries<T, Weighted>{w_old, v.inverse_diagonal}, first, count, n_block);
      lane_sum += update_block_on_host<Weighted>(v, w_old, w_new, alpha, beta, n_block, first, count);
    });
    return lane_sum;
  }
};

}  // namespace ksync::detail::cg
