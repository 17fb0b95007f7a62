// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Lanes: how a reduction whose terms also store deals its indices to the work items Kokkos runs, and how a
// lane sums its terms without Kokkos' accumulator (which the stores could alias). The fused CG steps
// (ksync/detail/cg/kernels.hpp), the distributed CG (ksync/mpi/cg.hpp) and its product's p . Ap
// (ksync/detail/spmv/row_sets.hpp) use them.
#pragma once

#include <ksync/backend.hpp>
#include <ksync/detail/reduction.hpp>  // split_for_host

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

namespace ksync::detail {

// The block of a host lane's chunk that a step writes and then reads back (lane_split::for_each_block): 256
// doubles of each array it touches stay in a 32 KiB first-level cache.
inline constexpr std::int64_t host_block = 256;

// How the indices of a reduction whose terms also store (a fused CG step, say) are
// dealt to its lanes (split_into_lanes). GPU backends: one index per lane up to 2^16 lanes,
// then about four per lane, as many lanes as one wave of the device runs at most (below), lane l taking l,
// l + lanes, ... (consecutive lanes, consecutive addresses); host backends: one contiguous chunk per lane
// (split_for_host). A lane reads the state and picks its buffers once, not once per index: the state's
// eight fields are reloaded per index otherwise, since the stores to the vectors may alias them. Fewer
// lanes than indices on small grids leave too few threads to hide the latencies; one index per lane on
// large ones rereads the state too often (docs/solvers.md: how 2^16 and four were chosen).
struct lane_split {
  std::int64_t n;
  std::int64_t lanes;
  std::int64_t chunk;  // 0: interleaved; otherwise lane l takes [l * chunk, (l + 1) * chunk) within [0, n)

  template <class Body>
  KOKKOS_FUNCTION void for_each(std::int64_t lane, const Body& body) const {
    if (chunk == 0) {
      for (std::int64_t i = lane; i < n; i += lanes)
        body(i);
    } else {
      const std::int64_t end = chunk_end(lane);
      for (std::int64_t i = lane * chunk; i < end; ++i)
        body(i);
    }
  }

  // Host backends (chunk != 0): one past the last index of the lane's chunk.
  KOKKOS_FUNCTION std::int64_t chunk_end(std::int64_t lane) const {
    return (lane + 1) * chunk < n ? (lane + 1) * chunk : n;
  }

  // Host backends (chunk != 0): the lane's chunk in blocks of at most `block` indices, body(first, count)
  // for each: a step that writes a block then reads it back finds it in the first-level cache.
  template <class Body>
  void for_each_block(std::int64_t lane, std::int64_t block, const Body& body) const {
    const std::int64_t end = chunk_end(lane);
    for (std::int64_t first = lane * chunk; first < end; first += block)
      body(first, end - first < block ? end - first : block);
  }
};

// The sum of term(first), ..., term(first + count - 1) in eight independent chains, for host loops: one
// chain waits for each add (four cycles or more a term) and keeps the loop scalar; eight vectorize. The terms
// are added in another order than one chain adds them, which CG's forms allow (cg_form: up to the order of
// the dots' partial sums) and the distributed CG's too (ksync/mpi/cg.hpp).
template <class T, class Term>
KOKKOS_FUNCTION T sum_in_chains(std::int64_t first, std::int64_t count, const Term& term) {
  constexpr int chains = 8;
  T partial[chains] = {};
  const std::int64_t end = first + count;
  std::int64_t i = first;
  for (; i + chains <= end; i += chains) {
    for (int k = 0; k < chains; ++k)
      partial[k] += term(i + k);
  }
  for (; i < end; ++i)
    partial[0] += term(i);
  T total = 0;
  for (const T value : partial)
    total += value;
  return total;
}

// Adds term(i) for every index of `lane` into `sum`, through a local: `sum` is Kokkos' accumulator, which
// the stores the terms make to the vectors could alias (it would be reloaded after each, and a CPU loop would
// not vectorize). A host lane's chunk is summed in chains (sum_in_chains).
template <class T, class Term>
KOKKOS_FUNCTION void fold_lane(const lane_split& split, std::int64_t lane, T& sum, const Term& term) {
  if (split.chunk != 0) {
    const std::int64_t first = lane * split.chunk;
    sum += sum_in_chains<T>(first, split.chunk_end(lane) - first, term);
    return;
  }
  T lane_sum = 0;
  split.for_each(lane, [&](std::int64_t i) { lane_sum += term(i); });
  sum += lane_sum;
}

template <class ExecutionSpace>
lane_split split_into_lanes(const ExecutionSpace& exec, std::int64_t n) {
  if constexpr (runs_on_host<ExecutionSpace>) {
    const auto [lanes, chunk] = split_for_host(exec, n);
    return {.n = n, .lanes = lanes, .chunk = chunk};
  } else {
    constexpr std::int64_t one_index_per_lane_up_to = std::int64_t{1} << 16;
    constexpr std::int64_t indices_per_lane = 4;
    // One wave: Kokkos runs a lane a thread, and the fused steps take 56-64 registers a thread, so half the
    // threads a multiprocessor holds (2048 on an H100 or H200: four blocks of 256) are resident at once. As many
    // lanes as the device holds threads ran in two waves and slower: on an H100 the two steps took 43.0 us at
    // m = 1024 that way, 30.5 in one wave (docs/solvers.md, "Portable fused at m = 4096"; measured with
    // Kokkos::LaunchBounds<256, 4>, which alone changed no timing at the old lane count, so none is set here).
    const std::int64_t one_wave = std::max<std::int64_t>(1, exec.concurrency() / 2);
    const std::int64_t lanes = n <= one_index_per_lane_up_to
                                   ? std::max<std::int64_t>(1, n)
                                   : std::clamp<std::int64_t>(n / indices_per_lane, one_index_per_lane_up_to,
                                                              std::max(one_wave, one_index_per_lane_up_to));
    return {.n = n, .lanes = lanes, .chunk = 0};
  }
}

// A rank's rows [0, n) dealt to the lanes of a reduction whose terms also store (the distributed CG's updates, its
// product's p . Ap). Host backends: a contiguous chunk a lane (split_into_lanes) summed in chains (fold_lane), not
// into Kokkos' accumulator, which the stores could alias (a CPU then kept it in memory). Device backends: one index a
// lane, as a RangePolicy.
template <class ExecutionSpace>
[[nodiscard]] lane_split rows_as_lanes(const ExecutionSpace& exec, std::int64_t n) {
  if constexpr (runs_on_host<ExecutionSpace>) {
    return split_into_lanes(exec, n);
  } else {
    return {.n = n, .lanes = n, .chunk = 0};
  }
}

}  // namespace ksync::detail
