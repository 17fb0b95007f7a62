// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Types both halves share (plain C++: no Kokkos, no CUDA), so that ksync:: and ksync::cuda:: operations
// with the same name take the same arguments.
#pragma once

#include <ksync/detail/arguments.hpp>
#include <ksync/strategy_rows.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ksync {

// How a reduction combines values.
enum class reduce_op { sum, min, max };

[[nodiscard]] constexpr std::string_view to_string(reduce_op op) noexcept {
  constexpr std::string_view names[] = {"sum", "min", "max"};
  return detail::name_in(names, op);
}

// How a device-wide reduction is carried out. Each half accepts the strategies it implements and throws
// std::invalid_argument naming any other; docs/architecture.md describes each one.
//   automatic   — the fastest measured strategy of the half you call (native: last_block; portable: tuned,
//                 or the native last_block on Kokkos::Cuda with the native half and contiguous data)
//   Portable (Kokkos only, any backend):
//   kokkos      — Kokkos::parallel_reduce over a RangePolicy, one element per index: what users write
//   team        — TeamPolicy: each team reduces a contiguous chunk with TeamThreadRange, then the league
//   tuned       — a league sized from concurrency(); each index keeps independent partials over many elements
//   Native (ksync::cuda; reachable from ksync:: on Kokkos::Cuda through the bridge):
//   two_pass    — per-block partials, then a second kernel
//   last_block  — one kernel: __threadfence + an atomic ticket; the last block to finish combines the partials
//   grid_sync   — one cooperative kernel: grid.sync(), then block 0 combines the partials
//   cluster     — one kernel of thread-block clusters (sm_90): distributed shared memory after cluster.sync(),
//                 one partial per cluster, then the last cluster combines them
//   atomics     — every block combines its value into the result with an atomic operation
enum class reduce_strategy {
  automatic,
  kokkos,
  team,
  tuned,
  two_pass,
  last_block,
  grid_sync,
  cluster,
  atomics,
};

// One row per strategy, in the enum's order: every name and half below comes from here. Each half's table
// of implementations (detail/reduce/strategies.hpp, ksync/cuda/detail/reduce/strategies.cuh) must hold a
// row for each of its strategies, which both check at compile time against this one.
inline constexpr strategy_row<reduce_strategy> reduce_strategy_rows[] = {
    {.id = reduce_strategy::automatic, .name = "automatic", .half = strategy_half::either},
    {.id = reduce_strategy::kokkos, .name = "kokkos", .half = strategy_half::portable},
    {.id = reduce_strategy::team, .name = "team", .half = strategy_half::portable},
    {.id = reduce_strategy::tuned, .name = "tuned", .half = strategy_half::portable},
    {.id = reduce_strategy::two_pass, .name = "two_pass", .half = strategy_half::native},
    {.id = reduce_strategy::last_block, .name = "last_block", .half = strategy_half::native},
    {.id = reduce_strategy::grid_sync, .name = "grid_sync", .half = strategy_half::native},
    {.id = reduce_strategy::cluster, .name = "cluster", .half = strategy_half::native},
    {.id = reduce_strategy::atomics, .name = "atomics", .half = strategy_half::native},
};

// An enumerator without a row has no name, no half, and no implementation table may list it (each checks
// its rows against these).
static_assert(detail::rows_follow_the_enum(reduce_strategy_rows),
              "reduce_strategy_rows must list the reduce_strategy values in order");

// `automatic` is each half's choice among its rows (strategy_half::either), not a row of either table.
constexpr const auto& strategy_rows(reduce_strategy /*tag*/) noexcept {
  return reduce_strategy_rows;
}

inline constexpr auto all_reduce_strategies = detail::ids_of(reduce_strategy_rows);

// The strategy named `name` (as to_string spells it); throws std::invalid_argument for any other name.
[[nodiscard]] inline reduce_strategy reduce_strategy_from_string(std::string_view name) {
  return detail::id_named(reduce_strategy_rows, name, "ksync::reduce_strategy_from_string", "strategy");
}

// How ksync::transform maps in to out.
//   automatic — tuned;  kokkos — parallel_for over RangePolicy(0, n), one element per index;
//   tuned     — a league sized from concurrency(), each index maps several elements (interleaved on GPUs,
//               a contiguous chunk on host backends);
//   native    — ksync::cuda::transform on exec's stream (Kokkos::Cuda and the native half only).
enum class transform_strategy { automatic, kokkos, tuned, native };

// One row per strategy, in the enum's order; the portable table (ksync/detail/transform/strategies.hpp) is
// checked against it at compile time. `native` is ksync::cuda::transform, which has no strategies of its own.
inline constexpr strategy_row<transform_strategy> transform_strategy_rows[] = {
    {.id = transform_strategy::automatic, .name = "automatic", .half = strategy_half::either},
    {.id = transform_strategy::kokkos, .name = "kokkos", .half = strategy_half::portable},
    {.id = transform_strategy::tuned, .name = "tuned", .half = strategy_half::portable},
    {.id = transform_strategy::native, .name = "native", .half = strategy_half::native},
};
static_assert(detail::rows_follow_the_enum(transform_strategy_rows),
              "transform_strategy_rows must list the transform_strategy values in order");

constexpr const auto& strategy_rows(transform_strategy /*tag*/) noexcept {
  return transform_strategy_rows;
}

// How an iterative computation of many dependent phases (ksync::jacobi, ksync::cuda::jacobi) is run; each
// phase reads what the previous one wrote, so something must separate them. docs/synchronization.md.
//   Native (ksync::cuda):
//   persistent_grid_sync         one cooperative kernel for all phases, grid.sync() between them
//   persistent_spin_barrier      one kernel, ksync's acquire/release spin barrier between phases
//   persistent_volatile_barrier  one kernel, a volatile sense-reversal (spinning-flag) barrier between phases
//   launch_per_phase             one kernel launch per phase; the stream orders them
//   cuda_graph                   those launches captured once into a CUDA graph, replayed per call
//   Portable (ksync::, any Kokkos backend):
//   kokkos_parallel_for          one parallel_for per phase on the execution-space instance
//   kokkos_graph                 those parallel_fors as nodes of a Kokkos::Experimental::Graph
enum class jacobi_form {
  persistent_grid_sync,
  persistent_spin_barrier,
  persistent_volatile_barrier,
  launch_per_phase,
  cuda_graph,
  kokkos_parallel_for,
  kokkos_graph
};
using iteration_form [[deprecated("ksync::iteration_form is now ksync::jacobi_form")]] = jacobi_form;

// What jacobi_form's rows say of a form besides its name and half. one_launch: every phase runs in one
// kernel whose grid stays resident (the persistent forms), so the grid must fit on the device at once;
// graph: the phases are captured once into a graph kept between calls, replayed while what it captured is
// unchanged.
struct jacobi_form_columns {
  bool one_launch;
  bool graph;
};

// One row per form, in the enum's order; each half's table of forms (ksync/detail/jacobi/forms.hpp,
// ksync/cuda/detail/jacobi/forms.cuh) is checked against it at compile time. No form is shared: each
// half runs its own.
// A table read across (the comment names its columns), so positional: clang-format and the designated-
// initializer check would break it into blocks of one field a line.
// clang-format off
// NOLINTBEGIN(modernize-use-designated-initializers)
inline constexpr strategy_row<jacobi_form, jacobi_form_columns> jacobi_form_rows[] = {
    // {id, name, half, {one_launch, graph}}
    {jacobi_form::persistent_grid_sync,        "persistent_grid_sync",        strategy_half::native,   {true, false}},
    {jacobi_form::persistent_spin_barrier,     "persistent_spin_barrier",     strategy_half::native,   {true, false}},
    {jacobi_form::persistent_volatile_barrier, "persistent_volatile_barrier", strategy_half::native,   {true, false}},
    {jacobi_form::launch_per_phase,            "launch_per_phase",            strategy_half::native,   {false, false}},
    {jacobi_form::cuda_graph,                  "cuda_graph",                  strategy_half::native,   {false, true}},
    {jacobi_form::kokkos_parallel_for,         "kokkos_parallel_for",         strategy_half::portable, {false, false}},
    {jacobi_form::kokkos_graph,                "kokkos_graph",                strategy_half::portable, {false, true}},
};
// NOLINTEND(modernize-use-designated-initializers)
// clang-format on
static_assert(detail::rows_follow_the_enum(jacobi_form_rows),
              "jacobi_form_rows must list the jacobi_form values in order");

constexpr const auto& strategy_rows(jacobi_form /*tag*/) noexcept {
  return jacobi_form_rows;
}

inline constexpr auto all_jacobi_forms = detail::ids_of(jacobi_form_rows);

// How each segment of ksync::segment_reduce and ksync::cuda::segment_reduce is reduced: one Kokkos team
// (portable) or one CUDA block (native) per segment.
//   Portable (ksync::, any Kokkos backend):
//   team_reduce          each member folds a strided share of the segment, then member.team_reduce
//   team_thread_range    a nested parallel_reduce over TeamThreadRange
//   team_vector_range    a nested parallel_reduce over TeamVectorRange (threads and vector lanes at once)
//   thread_vector_range  TeamThreadRange over chunks of 32, each chunk reduced over ThreadVectorRange
//   Native (ksync::cuda's block collectives; from ksync:: on Kokkos::Cuda through the bridge):
//   tree                 block::reduce_tree: a shared-memory tree, __syncthreads while several warps work,
//                        __syncwarp within the last one
//   shuffle              block::reduce_shuffle: warp shuffles, then one shared-memory exchange across warps
enum class segment_form {
  team_reduce,
  team_thread_range,
  team_vector_range,
  thread_vector_range,
  tree,
  shuffle,
};

inline constexpr strategy_row<segment_form> segment_form_rows[] = {
    {.id = segment_form::team_reduce, .name = "team_reduce", .half = strategy_half::portable},
    {.id = segment_form::team_thread_range, .name = "team_thread_range", .half = strategy_half::portable},
    {.id = segment_form::team_vector_range, .name = "team_vector_range", .half = strategy_half::portable},
    {.id = segment_form::thread_vector_range, .name = "thread_vector_range", .half = strategy_half::portable},
    {.id = segment_form::tree, .name = "tree", .half = strategy_half::native},
    {.id = segment_form::shuffle, .name = "shuffle", .half = strategy_half::native},
};
static_assert(detail::rows_follow_the_enum(segment_form_rows),
              "segment_form_rows must list the segment_form values in order");

constexpr const auto& strategy_rows(segment_form /*tag*/) noexcept {
  return segment_form_rows;
}

inline constexpr auto all_segment_forms = detail::ids_of(segment_form_rows);

// How ksync::spmv and ksync::cuda::spmv share the rows of y = A x (a CSR matrix) among threads:
//   automatic       each half's own choice (ksync/detail/spmv_choice.hpp): a row per thread on CPU backends;
//                   on a GPU, lanes_per_row once the mean row length nnz / rows reaches spmv_long_rows
//                   (8 native, 16 portable)
//   row_per_thread  one thread folds a whole row (csr_row_apply): no collective at all, best for short rows
//   lanes_per_row   a group of 2..32 lanes (a power of two: natively a quarter of the mean row length,
//                   portably an eighth of it, at least 4) folds a row's entries
//                   side by side, so that its loads coalesce, then combines its partial sums: portable, a
//                   ThreadVectorRange reduction; native, __shfl_xor_sync within the group
enum class spmv_strategy {
  automatic,
  row_per_thread,
  lanes_per_row,
};

inline constexpr strategy_row<spmv_strategy> spmv_strategy_rows[] = {
    {.id = spmv_strategy::automatic, .name = "automatic", .half = strategy_half::either},
    {.id = spmv_strategy::row_per_thread, .name = "row_per_thread", .half = strategy_half::both},
    {.id = spmv_strategy::lanes_per_row, .name = "lanes_per_row", .half = strategy_half::both},
};
static_assert(detail::rows_follow_the_enum(spmv_strategy_rows),
              "spmv_strategy_rows must list the spmv_strategy values in order");

constexpr const auto& strategy_rows(spmv_strategy /*tag*/) noexcept {
  return spmv_strategy_rows;
}

inline constexpr auto all_spmv_strategies = detail::ids_of(spmv_strategy_rows);

// Which half runs an operation that has one implementation in each and no strategies of its own
// (reverse_in_block, reverse, segment_predicates, pipeline): portable, Kokkos code on any backend, or
// native, ksync::cuda's twin on Kokkos::Cuda's stream through the bridge.
enum class implementation { portable, native };

inline constexpr strategy_row<implementation> implementation_rows[] = {
    {.id = implementation::portable, .name = "portable", .half = strategy_half::portable},
    {.id = implementation::native, .name = "native", .half = strategy_half::native},
};
static_assert(detail::rows_follow_the_enum(implementation_rows),
              "implementation_rows must list the implementation values in order");

constexpr const auto& strategy_rows(implementation /*tag*/) noexcept {
  return implementation_rows;
}

// How a chunked copy-compute-copy pipeline issues its steps (ksync::pipeline, ksync::cuda::pipeline).
//   depth_first    chunk by chunk: host-to-device copy, kernel, device-to-host copy of chunk c, then chunk
//                  c + 1 (the classic four-stream pipeline's order)
//   breadth_first  step by step: every chunk's host-to-device copy, then every kernel, then every copy back
enum class issue_order { depth_first, breadth_first };

[[nodiscard]] constexpr std::string_view to_string(issue_order order) noexcept {
  constexpr std::string_view names[] = {"depth_first", "breadth_first"};
  return detail::name_in(names, order);
}

// The shape of a chunked pipeline: chunk c (chunk_elements elements, the last one shorter) runs on stream
// (execution-space instance) c % streams. record_timeline: ksync::cuda::pipeline records events around every
// step and returns the per-chunk timeline.
struct pipeline_config {
  std::size_t chunk_elements = std::size_t{1} << 20;
  int streams = 4;
  issue_order order = issue_order::depth_first;
  bool record_timeline = false;
};

namespace detail {
// What both halves' pipelines check of a configuration before any work; `where` names the call.
inline void check_pipeline_config(const char* where, std::size_t n, const pipeline_config& config) {
  check_argument(config.streams >= 1, where, "config.streams = ", config.streams, " must be at least 1");
  check_argument(config.chunk_elements >= 1, where, "config.chunk_elements = ", config.chunk_elements,
                 " must be at least 1");
  check_argument(n == 0 || config.chunk_elements <= n, where, "config.chunk_elements = ", config.chunk_elements,
                 " exceeds n = ", n);
  check_argument(config.order == issue_order::depth_first || config.order == issue_order::breadth_first, where,
                 "config.order = ", static_cast<int>(config.order), " is not an issue_order");
}
}  // namespace detail

// What segment_predicates reports for one segment: how many elements satisfy the predicate (nonzero), and
// whether all / any of them do. An empty segment cannot occur (segments cover [0, n) without gaps).
struct predicate_summary {
  std::int32_t count = 0;
  std::int32_t all = 0;
  std::int32_t any = 0;
  friend constexpr bool operator==(const predicate_summary&, const predicate_summary&) = default;
};

}  // namespace ksync
