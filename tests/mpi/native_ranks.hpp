// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the native MPI tests (native_sparse_test.cpp, native_halo_test.cpp) share: a GPU for each rank, this rank's
// block of rows of a generated matrix on it, global inputs and the one-GPU reference rows.
#pragma once

#include "../support/sparse.hpp"
#include "world.hpp"

#include <ksync/cuda/csr_matrix.hpp>
#include <ksync/cuda/device/spmv.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/mpi/spmv.hpp>
#include <ksync/cuda/runtime.hpp>
#include <ksync/mpi/collective.hpp>
#include <ksync/mpi/device_memory.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ksync::test::native_ranks {

using matrix = ksync::host_csr_matrix<double, std::int32_t>;
using distributed = ksync::cuda::mpi::distributed_csr<double, std::int32_t>;
using ksync::rows_of;
using ksync::mpi::halo_memory;
using ksync::test::sparse_family;

// Makes GPU (node-local rank mod the visible GPUs) current; false where no GPU is visible.
inline bool take_a_gpu() {
  const int visible = ksync::cuda::visible_device_count();
  if (visible == 0) return false;
  EXPECT_EQ(cudaSetDevice(ksync::mpi::local_rank(MPI_COMM_WORLD) % visible), cudaSuccess);
  return true;
}

// The whole matrix on this rank's GPU, for the one-GPU references.
struct whole_matrix {
  ksync::cuda::device_buffer<std::int32_t> offsets, columns;
  ksync::cuda::device_buffer<double> values;
  ksync::cuda::csr_matrix<double, std::int32_t> a;
  whole_matrix(cudaStream_t stream, const matrix& host)
      : offsets(host.row_offsets),
        columns(host.columns),
        values(host.values),
        a(stream, host.rows, host.cols, host.nnz(), offsets.data(), columns.data(), values.data()) {}
};

// The halo paths this MPI allows: staged and peer always (the test's ranks share a node), direct where it reads
// CUDA memory.
inline std::vector<halo_memory> halo_paths() {
  std::vector<halo_memory> paths{halo_memory::staged, halo_memory::peer};
  if (ksync::mpi::reads_cuda_memory()) paths.push_back(halo_memory::direct);
  return paths;
}

// The first i < count where `differs(i)`, or count: a check that reports instead of returning early, since a rank
// that left a test here would leave the others waiting in the next collective.
template <class Differs>
std::int64_t first_where(std::int64_t count, const Differs& differs) {
  for (std::int64_t i = 0; i < count; ++i)
    if (differs(i)) return i;
  return count;
}

// A global x of n entries, another for each round.
inline std::vector<double> global_x(std::int64_t n, int round) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j)
    x[j] = static_cast<double>((j * 7 + std::int64_t{round} * 3) % 13) - 6.0 + 0.125 * static_cast<double>(j % 5);
  return x;
}

// This rank's block of rows of a matrix, on its GPU, with b = 1 and x = 0 on its rows.
struct rank_block {
  matrix a;
  ksync::row_partition partition;
  std::int64_t first;
  distributed part;
  ksync::cuda::device_buffer<double> b;
  ksync::cuda::device_buffer<double> x;

  explicit rank_block(matrix whole, halo_memory halo = halo_memory::automatic)
      : a(std::move(whole)),
        partition(a.rows, ksync::mpi::size_of(MPI_COMM_WORLD)),
        first(partition.begin(ksync::mpi::rank_of(MPI_COMM_WORLD))),
        part(MPI_COMM_WORLD, partition, rows_of(a, first, first + partition.size(ksync::mpi::rank_of(MPI_COMM_WORLD))),
             halo),
        b(std::vector<double>(static_cast<std::size_t>(part.owned_rows()), 1.0)),
        x(std::vector<double>(static_cast<std::size_t>(part.owned_rows()), 0.0)) {}

  // x's local columns on the device: this rank's entries of x_global, NaN for the ghosts.
  [[nodiscard]] ksync::cuda::device_buffer<double> local_x(const std::vector<double>& x_global) const {
    std::vector<double> local(static_cast<std::size_t>(part.local_columns()), std::numeric_limits<double>::quiet_NaN());
    std::copy_n(x_global.begin() + first, part.owned_rows(), local.begin());
    return ksync::cuda::device_buffer<double>(local);
  }

  // Reports the first of this rank's rows in y that differs from the one-GPU ksync::cuda::spmv (row_per_thread) of
  // x_global.
  void expect_the_one_gpu_rows(cudaStream_t stream, const ksync::cuda::device_buffer<double>& y,
                               const std::vector<double>& x_global, const std::string& where) const {
    const whole_matrix whole(stream, a);
    const ksync::cuda::device_buffer<double> x_all(x_global);
    const ksync::cuda::device_buffer<double> y_all(static_cast<std::size_t>(a.rows));
    ksync::cuda::spmv(stream, whole.a, static_cast<const double*>(x_all.data()), y_all.data(),
                      ksync::spmv_strategy::row_per_thread);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    const auto y_host = y.to_host();
    const auto expected = y_all.to_host();
    const std::int64_t owned = part.owned_rows();
    EXPECT_EQ(first_where(owned, [&](std::int64_t i) { return y_host[i] != expected[first + i]; }), owned)
        << where << ": the first row that differs";
  }
};

// call() must make every rank throw collective_error whose message holds `text`.
template <class Call>
void expect_refused(const Call& call, const std::string& text) {
  try {
    call();
    ADD_FAILURE() << "no exception for " << text;
  } catch (const ksync::mpi::collective_error& error) {
    EXPECT_NE(std::string(error.what()).find(text), std::string::npos) << error.what();
  }
}

inline std::string rank_text() {
  const auto [rank, size] = ksync::test::world();
  return "rank " + std::to_string(rank) + " of " + std::to_string(size);
}

}  // namespace ksync::test::native_ranks

// Skips the test where this rank has no GPU to take.
#define KSYNC_NEEDS_A_GPU()                       \
  if (!::ksync::test::native_ranks::take_a_gpu()) \
  GTEST_SKIP() << "ksync-skip: needs a CUDA GPU (the ranks may share one)"
