// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The matrices both halves' y = A x rows run (double, 32-bit indices and offsets): the 2-D and 3-D Poisson
// matrices of the CG rows (bench/sparse.hpp: 5 and 7 entries a row) and a banded matrix of 256 entries a row
// (long_rows), banded matrices of 8 ... 128 entries a row (row_length: where `automatic` changes rows), the x
// they multiply, the exact y they give, and the bytes a call moves at least.
#pragma once

#include "common.hpp"
#include "kept.hpp"
#include "sparse.hpp"

#include <ksync/csr.hpp>
#include <ksync/detail/host_device.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ksync::bench {

// x(j) = j mod 7 - 3: small integers, so that with the matrices' values (integers, or multiples of 1/4 in
// the banded rows) every product and every sum of a row is exact in double, in any order: each strategy's y must
// equal the host's bit for bit.
KSYNC_HOST_DEVICE constexpr double spmv_x(std::int64_t j) {
  return static_cast<double>(j % 7) - 3.0;
}

// Reads the expected y from device memory (the check compares y with it on the device).
struct spmv_expected_y {
  const double* values;
  KSYNC_HOST_DEVICE double operator()(std::int64_t i) const { return values[i]; }
};

inline constexpr std::int64_t spmv_long_row_length = 256;

// The entries of each row_length matrix: its rows are spmv_band_entries / (entries a row), so that every
// row length moves the same bytes (16 M entries, 201 MB of values and columns: far past L2).
inline constexpr std::int64_t spmv_band_entries = std::int64_t{1} << 24;

// `rows` rows of `row_length` entries in a band around the diagonal (columns i - row_length / 2 ...
// i + row_length / 2 - 1, taken modulo rows), values in {-0.75, -0.25, 0.25, 0.75}: the band keeps x's reads
// in cache, so that the matrix's own reads are what is timed.
inline ksync::host_csr_matrix<double, std::int32_t> banded_csr(std::int64_t rows, std::int64_t row_length) {
  ksync::host_csr_matrix<double, std::int32_t> a;
  a.rows = rows;
  a.cols = rows;
  a.row_offsets.reserve(static_cast<std::size_t>(rows) + 1);
  a.columns.reserve(static_cast<std::size_t>(rows * row_length));
  a.values.reserve(static_cast<std::size_t>(rows * row_length));
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t k = 0; k < row_length; ++k) {
      a.columns.push_back(static_cast<std::int32_t>(((i + k - row_length / 2) % rows + rows) % rows));
      a.values.push_back(static_cast<double>(k % 4) * 0.5 - 0.75);
    }
    a.row_offsets.push_back(static_cast<std::int32_t>(a.columns.size()));
  }
  return a;
}

// A matrix and the y = A spmv_x it gives, computed on the host.
struct spmv_host_problem {
  ksync::host_csr_matrix<double, std::int32_t> a;
  std::vector<double> x;
  std::vector<double> y;
};

// One family of rows: poisson_2d (m x m unknowns), poisson_3d (m^3), long_rows (m rows of
// spmv_long_row_length entries: the rows where a group of lanes per row is meant to win) or row_length (m
// entries a row, spmv_band_entries in all).
struct spmv_case {
  std::string name;

  // 2-D m = 64 ... 4096 and 3-D m = 16 ... 256 (as the CG rows; host backends a step less), rows of 256
  // entries from 2^12 to 2^18 rows (64 M entries, 805 MB), 8 ... 128 entries a row (host backends, where
  // `automatic` always runs a row per thread: two of them); smoke: one small size each.
  [[nodiscard]] std::vector<std::int64_t> sizes(bool smoke, bool host_backend = false) const {
    if (name == "poisson_2d") {
      if (smoke) return {16};
      return host_backend ? std::vector<std::int64_t>{64, 256, 1024} : std::vector<std::int64_t>{64, 256, 1024, 4096};
    }
    if (name == "poisson_3d") {
      if (smoke) return {6};
      return host_backend ? std::vector<std::int64_t>{16, 40, 100} : std::vector<std::int64_t>{16, 40, 100, 256};
    }
    if (name == "row_length") {
      if (smoke) return {8};
      return host_backend ? std::vector<std::int64_t>{8, 32} : std::vector<std::int64_t>{8, 12, 16, 24, 32, 64, 128};
    }
    if (smoke) return {256};
    return host_backend ? std::vector<std::int64_t>{1 << 12, 1 << 14, 1 << 16}
                        : std::vector<std::int64_t>{1 << 12, 1 << 14, 1 << 16, 1 << 18};
  }

  // The problem of size m; the last one is kept for the next row (kept.hpp): a size's rows run one after
  // another, and assembling the largest matrices takes seconds.
  [[nodiscard]] const spmv_host_problem& load(std::int64_t m) const {
    static kept_by_key<std::pair<std::string, std::int64_t>, spmv_host_problem> last;
    return last.get({name, m}, [&] {
      spmv_host_problem p;
      if (name == "long_rows") {
        p.a = banded_csr(m, spmv_long_row_length);
      } else if (name == "row_length") {
        p.a = banded_csr(spmv_band_entries / m, m);
      } else {
        p.a = poisson_csr(name == "poisson_2d" ? 2 : 3, m);
      }
      p.x.resize(static_cast<std::size_t>(p.a.cols));
      for (std::int64_t j = 0; j < p.a.cols; ++j)
        p.x[j] = spmv_x(j);
      p.y.assign(static_cast<std::size_t>(p.a.rows), 0.0);
      for (std::int64_t i = 0; i < p.a.rows; ++i)
        for (std::int32_t k = p.a.row_offsets[i]; k < p.a.row_offsets[i + 1]; ++k)
          p.y[i] += p.a.values[k] * p.x[static_cast<std::size_t>(p.a.columns[k])];
      return p;
    });
  }
};

inline std::vector<spmv_case> spmv_cases() {
  return {{"poisson_2d"}, {"poisson_3d"}, {"long_rows"}, {"row_length"}};
}

// The least a call moves: the matrix once (double values, 32-bit columns and offsets), x read once (its
// repeated reads from cache) and y written once.
inline std::int64_t spmv_bytes_floor(const ksync::host_csr_matrix<double, std::int32_t>& a) {
  return 12 * a.nnz() + 4 * (a.rows + 1) + 8 * a.cols + 8 * a.rows;
}

// After a row's timed loop: the matrix's shape and the floor (bytes_per_second, from the timing, is the floor
// over the time of a call).
inline void record_spmv(benchmark::State& state, const ksync::host_csr_matrix<double, std::int32_t>& a) {
  state.counters["rows"] = static_cast<double>(a.rows);
  state.counters["nnz"] = static_cast<double>(a.nnz());
  state.counters["mean_row_length"] = static_cast<double>(a.nnz()) / static_cast<double>(a.rows);
  state.counters["bytes_floor_per_call"] = static_cast<double>(spmv_bytes_floor(a));
}

}  // namespace ksync::bench
