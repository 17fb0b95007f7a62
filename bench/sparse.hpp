// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The assembled matrices of the sparse CG rows (cg_csr): the 2-D 5-point and 3-D 7-point Poisson operators
// in CSR with 32-bit indices, as applications assemble them, the sizes they run at, and the bytes an
// iteration moves.
#pragma once

#include "common.hpp"
#include "kept.hpp"

#include <ksync/cg_types.hpp>
#include <ksync/csr.hpp>
#include <ksync/detail/arguments.hpp>
#include <ksync/matrix_market.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ksync::bench {

// The Poisson matrix on a width x height grid (dims = 2, depth 1) or a width x height x depth one (dims = 3):
// 2·dims on the diagonal, -1 for each neighbour on the grid (zero Dirichlet boundary), columns in increasing
// order; row i is the point (i % width, (i / width) % height, i / (width height)). Throws
// std::invalid_argument for a grid of no points, depth > 1 in 2-D, or more entries than 32-bit offsets hold.
inline ksync::host_csr_matrix<double, std::int32_t> poisson_box_csr(int dims, std::int64_t width, std::int64_t height,
                                                                    std::int64_t depth) {
  constexpr const char* where = "ksync::bench::poisson_box_csr";
  ksync::detail::check_argument(dims == 2 || dims == 3, where, "dims = ", dims, " must be 2 or 3");
  ksync::detail::check_argument(width >= 1 && height >= 1 && depth >= 1, where, "width = ", width,
                                ", height = ", height, ", depth = ", depth, ": each must be at least 1");
  ksync::detail::check_argument(dims == 3 || depth == 1, where, "depth = ", depth, " but a 2-D grid has depth 1");
  ksync::detail::check_argument(width <= INT32_MAX / height && width * height <= INT32_MAX / depth / (2 * dims + 1),
                                where, "width = ", width, ", height = ", height, ", depth = ", depth,
                                ": more entries than 32-bit row offsets hold");
  ksync::host_csr_matrix<double, std::int32_t> a;
  const std::int64_t plane = width * height;
  const std::int64_t n = plane * depth;
  a.rows = n;
  a.cols = n;
  a.row_offsets.reserve(static_cast<std::size_t>(n) + 1);
  a.columns.reserve(static_cast<std::size_t>(n) * (2 * dims + 1));
  a.values.reserve(static_cast<std::size_t>(n) * (2 * dims + 1));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t x = i % width;
    const std::int64_t y = (i / width) % height;
    const std::int64_t z = i / plane;
    const auto add = [&](std::int64_t column, double value) {
      a.columns.push_back(static_cast<std::int32_t>(column));
      a.values.push_back(value);
    };
    if (dims == 3 && z > 0) add(i - plane, -1.0);
    if (y > 0) add(i - width, -1.0);
    if (x > 0) add(i - 1, -1.0);
    add(i, 2.0 * dims);
    if (x + 1 < width) add(i + 1, -1.0);
    if (y + 1 < height) add(i + width, -1.0);
    if (dims == 3 && z + 1 < depth) add(i + plane, -1.0);
    a.row_offsets.push_back(static_cast<std::int32_t>(a.columns.size()));
  }
  return a;
}

// The 2-D Poisson matrix on m x m unknowns (dims = 2) or the 3-D one on m^3 (dims = 3).
inline ksync::host_csr_matrix<double, std::int32_t> poisson_csr(int dims, std::int64_t m) {
  return poisson_box_csr(dims, m, m, dims == 3 ? m : 1);
}

// The sizes: 2-D m = 64 ... 4096 (smoke 16, 32), 3-D m = 25 ... 256 (smoke 6, 10). The 3-D rows start at
// 25: at m = 16 the residual of every solver reached 0 exactly after 150-152 of the 200 iterations (H200,
// 2026-12-03), and a row needs all of them.
// Host backends stop a step earlier, as the stencil rows do (common.hpp, cg_grid_sizes).
inline std::vector<std::int64_t> cg_csr_sizes(int dims, bool smoke, bool host_backend = false) {
  if (dims == 2) {
    if (smoke) return {16, 32};
    if (host_backend) return {64, 256, 1024};
    return {64, 256, 1024, 4096};
  }
  if (smoke) return {6, 10};
  if (host_backend) return {25, 40, 100};
  return {25, 40, 100, 256};
}

// Bytes an iteration moves in double: the matrix once (values and 32-bit columns, 32-bit offsets) and the
// vector passes of the stencil rows (common.hpp: 10 fused, 14 unfused), each vector read or written once;
// Jacobi PCG reads M^-1 twice more (where the direction is formed and where r . M^-1 r is summed).
inline double cg_csr_bytes_per_iteration(const ksync::host_csr_matrix<double, std::int32_t>& a, bool fused,
                                         bool jacobi = false, bool pipelined = false) {
  const auto n = static_cast<double>(a.rows);
  const double matrix = 12.0 * static_cast<double>(a.nnz()) + 4.0 * (n + 1);
  // Jacobi's M^-1: read twice an iteration classic (direction and update), once pipelined (its row's entry; the
  // neighbours' come from cache).
  const double preconditioner = jacobi ? (pipelined ? 1.0 : 2.0) : 0.0;
  return matrix + (cg_vector_passes(fused, pipelined) + preconditioner) * 8.0 * n;
}

// What a cg_csr row solves: the generated Poisson matrix of `dims` dimensions at the row's m, a fixed number
// of iterations (the tolerance out of reach); or the Matrix Market file given as --ksync_matrix=FILE (the
// row's m is then 0), solved to ||r|| / ||b|| <= 1e-10 or the iterations, whichever comes first, each row
// dividing its time by the iterations it ran (a small matrix converges long before them).
struct csr_case {
  int dims = 2;
  std::string file;
  [[nodiscard]] std::string name() const { return file.empty() ? (dims == 2 ? "poisson_2d" : "poisson_3d") : "file"; }
  [[nodiscard]] double tolerance() const { return file.empty() ? 1e-30 : 1e-10; }
  [[nodiscard]] ksync::cg_options options(int iterations, ksync::cg_preconditioner preconditioner,
                                          ksync::cg_recurrence recurrence) const {
    ksync::cg_options chosen;
    chosen.tolerance = tolerance();
    chosen.max_iterations = iterations;
    chosen.preconditioner = preconditioner;
    chosen.recurrence = recurrence;
    return chosen;
  }
  // The matrix of a row of size m. The last one is kept for the next row (kept.hpp): the rows of one case
  // and size run one after another (the suites register size by size), and assembling the largest matrices
  // took 2.6 s (2-D, m = 4096) and 4.1 s (3-D, m = 256) each on the 2-core machine, 2026-12-03, once per
  // repetition of each of a size's dozen rows.
  [[nodiscard]] const ksync::host_csr_matrix<double, std::int32_t>& load(std::int64_t m) const {
    static kept_by_key<csr_source, ksync::host_csr_matrix<double, std::int32_t>> last;
    return last.get(source_of(dims, m, file),
                    [&] { return file.empty() ? poisson_csr(dims, m) : ksync::read_matrix_market<double>(file); });
  }
};

// The file of --ksync_matrix=FILE (taken out of argv, as --ksync_smoke is), or "" without one.
inline std::string take_matrix_flag(int& argc, char** argv) {
  constexpr const char* flag = "--ksync_matrix=";
  std::string file;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], flag, std::strlen(flag)) == 0) {
      file = argv[i] + std::strlen(flag);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return file;
}

// The cases the cg_csr rows run: the 2-D and 3-D Poisson matrices, and the file when one is given.
inline std::vector<csr_case> cg_csr_cases(const std::string& file) {
  std::vector<csr_case> cases{{.dims = 2, .file = {}}, {.dims = 3, .file = {}}};
  if (!file.empty()) cases.push_back({.dims = 0, .file = file});
  return cases;
}
inline std::vector<std::int64_t> cg_csr_sizes(const csr_case& c, bool smoke, bool host_backend = false) {
  return c.file.empty() ? cg_csr_sizes(c.dims, smoke, host_backend) : std::vector<std::int64_t>{0};
}

// What a cg_csr row of a ksync form varies beside the form: the preconditioner and the recurrence.
//  - Jacobi on the 2-D Poisson matrix only (rows .../jacobi/<form>/double): M^-1 = I / 4 changes no iterate
//    there, so the rows time what PCG adds to an iteration, and the rows' check, which compares the recurrence
//    with ||b - A x|| / ||b||, still holds (on another matrix the M^-1 norm the recurrence reports differs).
//  - The pipelined recurrence on the 2-D matrix and on a file (rows .../pipelined/<form>/double), in the
//    forms that run it.
struct cg_csr_variant {
  ksync::cg_preconditioner preconditioner = ksync::cg_preconditioner::none;
  ksync::cg_recurrence recurrence = ksync::cg_recurrence::classic;
  [[nodiscard]] bool jacobi() const { return preconditioner == ksync::cg_preconditioner::jacobi; }
  [[nodiscard]] bool pipelined() const { return recurrence == ksync::cg_recurrence::pipelined; }
  [[nodiscard]] bool runs(ksync::cg_form form) const { return !pipelined() || ksync::runs_pipelined(form); }
};
inline std::vector<cg_csr_variant> cg_csr_variants(const csr_case& c) {
  using ksync::cg_preconditioner;
  using ksync::cg_recurrence;
  std::vector<cg_csr_variant> variants{{}};
  if (c.file.empty() && c.dims == 2) variants.push_back({.preconditioner = cg_preconditioner::jacobi});
  if (!c.file.empty() || c.dims == 2) variants.push_back({.recurrence = cg_recurrence::pipelined});
  return variants;
}
inline std::string cg_csr_prefix(const csr_case& c, const cg_csr_variant& variant) {
  return c.name() + (variant.jacobi() ? "/jacobi/" : "/") + (variant.pipelined() ? "pipelined/" : "");
}

}  // namespace ksync::bench
