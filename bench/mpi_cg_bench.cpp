// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync_mpi_bench — ksync::mpi::cg on the ranks mpiexec starts, and where an iteration's time goes:
//
//   mpiexec -n 2 ksync_mpi_bench [--sizes=256,1024] [--iterations=100] [--repetitions=7] [--halo=automatic]
//                                [--native-halo=PATH] [--weak] [--json=FILE] [--smoke]
//
// Not a Google Benchmark suite: each call here is collective, so every rank must make the same number of them,
// which this program fixes instead of letting each rank's timer decide. For each m, the 2-D Poisson matrix on
// m x m unknowns (double, 32-bit indices) split by rows (strong scaling: the same matrix on any number of
// ranks), or with --weak on a grid m wide and (ranks x m) tall, m x m unknowns and two halos of m entries a
// rank but at the ends (weak scaling: the same block on every rank); per row below the slowest rank's median over the
// repetitions, each one between an MPI_Barrier and a fence of the instance (µs):
//   cg classic, cg pipelined   a solve of --iterations iterations (a tolerance never met), per iteration
//   cg classic, no exchange; cg pipelined, no exchange
//                              the same solves on each rank's diagonal block (the other ranks' columns left out):
//                              the same rows, kernels and global sums, no halo exchange
//   kokkos cg                  the same with the CG a Kokkos application writes without ksync (bench/mpi_kokkos_cg.hpp:
//                              the halo through Kokkos' host mirrors, pageable on a GPU, then every row; each dot a
//                              parallel_reduce to the host and a blocking MPI_Allreduce)
//   product                    ksync::mpi::spmv: the halo exchange overlapped with the interior rows
//   interior, boundary         each row set alone, no exchange
//   exchange                   the halo alone, as the product moves it: pack, fence, MPI_Irecv/MPI_Isend,
//                              MPI_Waitall, and the ghosts' copy into x where they were staged
//   allreduce                  one blocking MPI_Allreduce of two doubles (what a dot adds across ranks)
//   native cg classic; native cg pipelined; native cg nccl; native cg classic, no exchange; native cg pipelined, no
//   exchange; native product; native interior; native boundary
//                              the same with ksync::cuda::mpi::cg and ksync::cuda::mpi::spmv (the native half, on
//                              the Kokkos instance's CUDA stream), where the build has it (Kokkos on CUDA and
//                              ksync::cuda_mpi); `native cg nccl` (the NCCL form, scalars on the GPUs) where every
//                              rank has a GPU of its own and the build has NCCL
// product / (interior + boundary) is what the exchange adds to a product where it is not hidden, and cg classic /
// no exchange and cg pipelined / no exchange what it adds to an iteration of each recurrence (1.0: hidden entirely).
// --halo picks where the halo travels (ksync::mpi::halo_memory: automatic, direct, staged), --native-halo the same
// for the native rows (default: --halo's; `peer` is theirs alone); the report names the paths rank 0 took
// ("peer (graphs)" where its peer products were launched as captured graphs).
// Rank 0 prints a Markdown table; --json writes the same rows for tools. Ranks sharing one GPU (or one CPU)
// show the overhead of splitting, not a speed-up: docs/multi-gpu.md says how to read them.
#include "mpi_kokkos_cg.hpp"
#include "sparse.hpp"

#include <ksync/halo.hpp>
#include <ksync/mpi/cg.hpp>
#include <ksync/mpi/spmv.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#if KSYNC_MPI_BENCH_NATIVE
#include <ksync/cuda/mpi/cg.hpp>
#include <ksync/cuda/mpi/spmv.hpp>
#include <ksync/cuda/node/mpi.hpp>
#include <ksync/cuda/node/nccl.hpp>
#include <ksync/cuda/runtime.hpp>

#include <utility>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

using exec_t = Kokkos::DefaultExecutionSpace;

struct settings {
  std::vector<std::int64_t> sizes{256, 1024, 2048};
  int iterations = 100;
  int repetitions = 7;
  ksync::mpi::halo_memory halo = ksync::mpi::halo_memory::automatic;
  std::optional<ksync::mpi::halo_memory> native_halo;  // --halo's where not given
  bool weak = false;
  std::string json;
};

settings parse(int argc, char** argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto value = [&](std::string_view flag) { return std::string(arg.substr(flag.size())); };
    if (arg == "--smoke") {
      s.sizes = {32};
      s.iterations = 5;
      s.repetitions = 2;
    } else if (arg.starts_with("--sizes=")) {
      s.sizes.clear();
      std::stringstream list(value("--sizes="));
      for (std::string item; std::getline(list, item, ',');)
        s.sizes.push_back(std::stoll(item));
    } else if (arg.starts_with("--iterations=")) {
      s.iterations = std::stoi(value("--iterations="));
    } else if (arg.starts_with("--repetitions=")) {
      s.repetitions = std::stoi(value("--repetitions="));
    } else if (arg.starts_with("--halo=")) {
      s.halo = ksync::mpi::halo_memory_from_string(value("--halo="));
    } else if (arg.starts_with("--native-halo=")) {
      s.native_halo = ksync::mpi::halo_memory_from_string(value("--native-halo="));
    } else if (arg == "--weak") {
      s.weak = true;
    } else if (arg.starts_with("--json=")) {
      s.json = value("--json=");
    } else {
      throw std::invalid_argument("ksync_mpi_bench: unknown argument '" + std::string(arg) +
                                  "' (--sizes=a,b,... --iterations=N --repetitions=N --halo=PATH --native-halo=PATH "
                                  "--weak --json=FILE --smoke)");
    }
  }
  if (s.sizes.empty() || s.iterations < 1 || s.repetitions < 1)
    throw std::invalid_argument("ksync_mpi_bench: --sizes needs one size at least, --iterations and --repetitions 1");
  return s;
}

// This rank's rows (global columns) with every column another rank owns left out: the diagonal block, on which a
// distributed solve does the same local work and global sums as on the whole rows, and exchanges nothing. Still
// symmetric positive definite where the whole matrix is (a principal submatrix), so CG runs every iteration.
ksync::host_csr_matrix<double, std::int32_t> own_columns(const ksync::host_csr_matrix<double, std::int32_t>& mine,
                                                         std::int64_t begin, std::int64_t end) {
  ksync::host_csr_matrix<double, std::int32_t> block;
  block.rows = mine.rows;
  block.cols = mine.cols;
  for (std::int64_t i = 0; i < mine.rows; ++i) {
    for (std::int32_t k = mine.row_offsets[i]; k < mine.row_offsets[i + 1]; ++k) {
      if (mine.columns[k] < begin || mine.columns[k] >= end) continue;
      block.columns.push_back(mine.columns[k]);
      block.values.push_back(mine.values[k]);
    }
    block.row_offsets.push_back(static_cast<std::int32_t>(block.columns.size()));
  }
  return block;
}

// The slowest rank's median of `repetitions` timed calls of step (after one untimed call), µs.
template <class Step>
double slowest_median_us(const exec_t& exec, int repetitions, const Step& step) {
  step();
  exec.fence("ksync::bench::mpi: warm-up");
  std::vector<double> times;
  for (int r = 0; r < repetitions; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto begin = std::chrono::steady_clock::now();
    step();
    exec.fence("ksync::bench::mpi: timed call");
    times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin).count());
  }
  std::ranges::sort(times);
  double median = times[times.size() / 2];
  double slowest = 0;
  MPI_Allreduce(&median, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

// Options whose tolerance is never met, so that a solve runs all `iterations`.
ksync::cg_options all_iterations(int iterations, ksync::cg_recurrence recurrence = ksync::cg_recurrence::classic) {
  ksync::cg_options options;
  options.tolerance = std::numeric_limits<double>::min();
  options.max_iterations = iterations;
  options.recurrence = recurrence;
  return options;
}

// The slowest rank's median µs an iteration of solve() (from x = 0; it returns the iterations it took), which must
// run all --iterations: `which` names it in the error.
template <class Solve>
double per_iteration_us(const exec_t& exec, const settings& s, const char* which, const Solve& solve) {
  const double us = slowest_median_us(exec, s.repetitions, [&] {
    const int taken = solve();
    if (taken != s.iterations)
      throw std::runtime_error(std::string("ksync_mpi_bench: ") + which + " stopped after " + std::to_string(taken) +
                               " iterations, not " + std::to_string(s.iterations));
  });
  return us / s.iterations;
}

// ksync::mpi::cg's µs an iteration on `a` with `recurrence`.
template <class Matrix>
double iteration_us(const exec_t& exec, const settings& s, const Matrix& a, const Kokkos::View<double*>& b,
                    ksync::cg_recurrence recurrence) {
  const ksync::cg_options options = all_iterations(s.iterations, recurrence);
  const Kokkos::View<double*> solution("ksync::bench::mpi::solution", a.owned_rows());
  return per_iteration_us(exec, s, "the solve", [&] {
    Kokkos::deep_copy(exec, solution, 0.0);
    return ksync::mpi::cg(exec, MPI_COMM_WORLD, a, b, solution, options).iterations;
  });
}

struct row {
  std::int64_t m;
  std::string name;
  double us;
};

#if KSYNC_MPI_BENCH_NATIVE
// The NCCL communicator of the form whose scalars stay on the GPUs, made by main where every rank has a GPU of its
// own (NCCL takes one a rank) and the build has NCCL; null otherwise (then that row is left out).
ksync::cuda::node::nccl_communicator* bench_nccl = nullptr;
// Where the native matrix's halo travelled (rank 0's, for the report), and whether its peer products were graphs.
std::optional<ksync::mpi::halo_memory> native_path;
bool native_graphs = false;

// ksync::cuda::mpi::cg's µs an iteration on `a`, as iteration_us, on the CUDA stream of `exec`.
double native_iteration_us(const exec_t& exec, const settings& s,
                           const ksync::cuda::mpi::distributed_csr<double, std::int32_t>& a,
                           const Kokkos::View<double*>& b, ksync::cg_recurrence recurrence) {
  const ksync::cg_options options = all_iterations(s.iterations, recurrence);
  const Kokkos::View<double*> x("ksync::bench::mpi::native_solution", a.local_columns());
  return per_iteration_us(exec, s, "the native solve", [&] {
    Kokkos::deep_copy(exec, x, 0.0);
    return ksync::cuda::mpi::cg(exec.cuda_stream(), MPI_COMM_WORLD, a, b.data(), x.data(), options).iterations;
  });
}

// The native half's rows of one m, on the CUDA stream of `exec` (so that its fence ends each timed call).
void measure_native(const exec_t& exec, const settings& s, std::int64_t m,
                    const ksync::host_csr_matrix<double, std::int32_t>& mine, const ksync::row_partition& partition,
                    std::vector<row>& rows) {
  const cudaStream_t stream = exec.cuda_stream();
  const ksync::cuda::mpi::distributed_csr<double, std::int32_t> a(MPI_COMM_WORLD, partition, mine,
                                                                  s.native_halo.value_or(s.halo));
  native_path = a.halo();
  const std::int64_t n = a.owned_rows();
  Kokkos::View<double*> x("ksync::bench::mpi::native_x", a.local_columns());
  Kokkos::View<double*> y("ksync::bench::mpi::native_y", n);
  Kokkos::View<double*> b("ksync::bench::mpi::native_b", n);
  Kokkos::deep_copy(exec, b, 1.0);
  for (const auto recurrence : {ksync::cg_recurrence::classic, ksync::cg_recurrence::pipelined})
    rows.push_back(
        {m, "native cg " + std::string(ksync::to_string(recurrence)), native_iteration_us(exec, s, a, b, recurrence)});
  {
    const ksync::cuda::mpi::distributed_csr<double, std::int32_t> alone(
        MPI_COMM_WORLD, partition,
        own_columns(mine, partition.begin(ksync::mpi::rank_of(MPI_COMM_WORLD)),
                    partition.end(ksync::mpi::rank_of(MPI_COMM_WORLD))),
        s.native_halo.value_or(s.halo));
    for (const auto recurrence : {ksync::cg_recurrence::classic, ksync::cg_recurrence::pipelined})
      rows.push_back({m, "native cg " + std::string(ksync::to_string(recurrence)) + ", no exchange",
                      native_iteration_us(exec, s, alone, b, recurrence)});
  }
  if (bench_nccl != nullptr) {
    const ksync::cg_options options = all_iterations(s.iterations);
    rows.push_back(
        {m, "native cg nccl", per_iteration_us(exec, s, "the NCCL solve", [&] {
           Kokkos::deep_copy(exec, x, 0.0);
           return ksync::cuda::mpi::cg(stream, MPI_COMM_WORLD, *bench_nccl, a, b.data(), x.data(), options).iterations;
         })});
  }
  Kokkos::deep_copy(exec, x, 1.0);
  rows.push_back({m, "native product", slowest_median_us(exec, s.repetitions, [&] {
                    ksync::cuda::mpi::spmv(stream, MPI_COMM_WORLD, a, x.data(), y.data());
                  })});
  for (const auto& [name, set] :
       {std::pair{"native interior", a.interior_rows()}, {"native boundary", a.boundary_rows()}})
    rows.push_back({m, name, slowest_median_us(exec, s.repetitions, [&] {
                      ksync::cuda::detail::distributed::multiply_rows(stream, a.local_matrix(), set,
                                                                      static_cast<const double*>(x.data()), y.data());
                    })});
  native_graphs = a.peer() != nullptr && a.peer()->graph_launched() && !a.peer()->captures_refused();
}
#endif

// Throws unless `baseline` (the baseline's x after `iterations` iterations from 0) is, on every rank, within 1e-6 of
// the largest entry of ksync::mpi::cg's x after as many: a baseline timed is a baseline that solves. The two sum in
// other orders, and CG carries the difference from iteration to iteration (more, the worse A's conditioning); a
// wrong step differs in the leading digits.
template <class Matrix, class Vector, class Solution>
void check_against_ksync(const exec_t& exec, const Matrix& a, const Vector& b, const Solution& baseline,
                         int iterations) {
  Kokkos::View<double*> x("ksync::bench::mpi::check_x", a.owned_rows());
  (void)ksync::mpi::cg(exec, MPI_COMM_WORLD, a, b, x, all_iterations(iterations));
  const auto mine = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  const auto theirs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), baseline);
  double local[2] = {0, 0};  // the largest |x_i| and the largest difference
  for (std::size_t i = 0; i < mine.extent(0); ++i) {
    local[0] = std::max(local[0], std::abs(mine(i)));
    local[1] = std::max(local[1], std::abs(mine(i) - theirs(i)));
  }
  double global[2];
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (!(global[1] <= 1e-6 * global[0]))
    throw std::runtime_error("ksync_mpi_bench: the Kokkos baseline's x differs from ksync::mpi::cg's by " +
                             std::to_string(global[1]) + ", the largest entry being " + std::to_string(global[0]));
}

// The rows of one m; `path` becomes where this rank's halo travelled.
std::vector<row> measure(const exec_t& exec, const settings& s, std::int64_t m, ksync::mpi::halo_memory& path) {
  const int rank = ksync::mpi::rank_of(MPI_COMM_WORLD);
  const int ranks = ksync::mpi::size_of(MPI_COMM_WORLD);
  const auto whole = s.weak ? ksync::bench::poisson_box_csr(2, m, ranks * m, 1) : ksync::bench::poisson_csr(2, m);
  const ksync::row_partition partition(whole.rows, ranks);
  const auto mine = ksync::rows_of(whole, partition.begin(rank), partition.end(rank));  // this rank's rows, once
  const ksync::mpi::distributed_csr a(exec, MPI_COMM_WORLD, partition, mine, s.halo);
  path = a.halo();
  const std::int64_t n = a.owned_rows();
  Kokkos::View<double*> x("ksync::bench::mpi::x", a.local_columns());
  Kokkos::View<double*> y("ksync::bench::mpi::y", n);
  Kokkos::View<double*> b("ksync::bench::mpi::b", n);
  Kokkos::deep_copy(exec, x, 1.0);
  Kokkos::deep_copy(exec, b, 1.0);
  std::vector<row> rows;

  for (const auto recurrence : {ksync::cg_recurrence::classic, ksync::cg_recurrence::pipelined})
    rows.push_back({m, "cg " + std::string(ksync::to_string(recurrence)), iteration_us(exec, s, a, b, recurrence)});
  {
    const ksync::mpi::distributed_csr alone(exec, MPI_COMM_WORLD, partition,
                                            own_columns(mine, partition.begin(rank), partition.end(rank)), s.halo);
    for (const auto recurrence : {ksync::cg_recurrence::classic, ksync::cg_recurrence::pipelined})
      rows.push_back({m, "cg " + std::string(ksync::to_string(recurrence)) + ", no exchange",
                      iteration_us(exec, s, alone, b, recurrence)});
  }
  {
    const auto solution = Kokkos::subview(x, Kokkos::make_pair(std::int64_t{0}, n));
    rows.push_back({m, "kokkos cg", per_iteration_us(exec, s, "the Kokkos solve", [&] {
                      Kokkos::deep_copy(exec, solution, 0.0);
                      // Its vectors made in each timed solve, as ksync::mpi::cg makes its own.
                      ksync::bench::mpi_baseline::kokkos_cg baseline(exec, MPI_COMM_WORLD, a);
                      return baseline.solve(b, solution, s.iterations, std::numeric_limits<double>::min());
                    })});
    check_against_ksync(exec, a, b, solution, s.iterations);
  }
  Kokkos::deep_copy(exec, x, 1.0);
  rows.push_back(
      {m, "product", slowest_median_us(exec, s.repetitions, [&] { ksync::mpi::spmv(exec, MPI_COMM_WORLD, a, x, y); })});
  rows.push_back({m, "interior", slowest_median_us(exec, s.repetitions, [&] {
                    ksync::mpi::detail::enqueue_rows(exec, "ksync::bench::mpi::interior", a.local_matrix(),
                                                     a.interior_rows(), x, y);
                  })});
  rows.push_back({m, "boundary", slowest_median_us(exec, s.repetitions, [&] {
                    ksync::mpi::detail::enqueue_rows(exec, "ksync::bench::mpi::boundary", a.local_matrix(),
                                                     a.boundary_rows(), x, y);
                  })});
  rows.push_back({m, "exchange", slowest_median_us(exec, s.repetitions, [&] {
                    ksync::mpi::detail::local_failure failure;
                    auto requests = ksync::mpi::detail::start_halo(exec, MPI_COMM_WORLD, a, x, failure, 4244);
                    ksync::mpi::detail::finish_halo(exec, a, x, requests, failure);
                    failure.rethrow_here();
                  })});
  rows.push_back({m, "allreduce", slowest_median_us(exec, s.repetitions, [&] {
                    double local[2] = {1.0, 2.0};
                    double global[2];
                    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                  })});
#if KSYNC_MPI_BENCH_NATIVE
  measure_native(exec, s, m, mine, partition, rows);
#endif
  return rows;
}

double find(const std::vector<row>& rows, std::int64_t m, std::string_view name) {
  for (const row& r : rows)
    if (r.m == m && r.name == name) return r.us;
  return 0;
}

void report(const settings& s, const std::vector<row>& rows, int ranks, ksync::mpi::halo_memory path) {
  std::printf(
      "ksync_mpi_bench: %d rank(s), Kokkos %s, 2-D Poisson (CSR, double) on %s, %d iterations a solve, "
      "slowest rank's median of %d, halo %s (asked: %s)\n\n",
      ranks, exec_t::name(), s.weak ? "m x m unknowns a rank (weak)" : "m x m unknowns in all", s.iterations,
      s.repetitions, std::string(ksync::mpi::to_string(path)).c_str(),
      std::string(ksync::mpi::to_string(s.halo)).c_str());
  // What the exchange adds: to a product (over its two row sets alone) and to an iteration (over the same solve on
  // the diagonal blocks); 0 where a row was not run.
  const auto ratio = [&](std::int64_t m, std::string_view over, double under) {
    return under > 0 ? find(rows, m, over) / under : 0.0;
  };
  std::printf(
      "| m | cg classic | cg pipelined | kokkos cg | cg classic, no exchange | cg pipelined, no exchange | product | "
      "interior | boundary | exchange | allreduce | product / (interior + boundary) | cg classic / no exchange | "
      "cg pipelined / no exchange |\n"
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const std::int64_t m : s.sizes)
    std::printf("| %lld | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f |\n",
                static_cast<long long>(m), find(rows, m, "cg classic"), find(rows, m, "cg pipelined"),
                find(rows, m, "kokkos cg"), find(rows, m, "cg classic, no exchange"),
                find(rows, m, "cg pipelined, no exchange"), find(rows, m, "product"), find(rows, m, "interior"),
                find(rows, m, "boundary"), find(rows, m, "exchange"), find(rows, m, "allreduce"),
                ratio(m, "product", find(rows, m, "interior") + find(rows, m, "boundary")),
                ratio(m, "cg classic", find(rows, m, "cg classic, no exchange")),
                ratio(m, "cg pipelined", find(rows, m, "cg pipelined, no exchange")));
  std::string native_halo = "none";
#if KSYNC_MPI_BENCH_NATIVE
  if (native_path) native_halo = std::string(ksync::mpi::to_string(*native_path)) + (native_graphs ? " (graphs)" : "");
#endif
  if (find(rows, s.sizes.front(), "native product") > 0) {
    std::printf(
        "\nThe native half (ksync::cuda::mpi), halo %s, µs (cg nccl: the form whose scalars stay on the GPUs, 0 where "
        "not run):\n\n"
        "| m | cg classic | cg pipelined | cg nccl | cg classic, no exchange | cg pipelined, no exchange | product | "
        "interior | boundary | product / (interior + boundary) | cg classic / no exchange | cg pipelined / no exchange "
        "|\n"
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        native_halo.c_str());
    for (const std::int64_t m : s.sizes)
      std::printf("| %lld | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f |\n",
                  static_cast<long long>(m), find(rows, m, "native cg classic"), find(rows, m, "native cg pipelined"),
                  find(rows, m, "native cg nccl"), find(rows, m, "native cg classic, no exchange"),
                  find(rows, m, "native cg pipelined, no exchange"), find(rows, m, "native product"),
                  find(rows, m, "native interior"), find(rows, m, "native boundary"),
                  ratio(m, "native product", find(rows, m, "native interior") + find(rows, m, "native boundary")),
                  ratio(m, "native cg classic", find(rows, m, "native cg classic, no exchange")),
                  ratio(m, "native cg pipelined", find(rows, m, "native cg pipelined, no exchange")));
  }
  if (s.json.empty()) return;
  std::ofstream out(s.json);
  out << "{\n  \"ranks\": " << ranks << ",\n  \"backend\": \"" << exec_t::name() << "\",\n  \"halo\": \""
      << ksync::mpi::to_string(path) << "\",\n  \"halo_asked\": \"" << ksync::mpi::to_string(s.halo)
      << "\",\n  \"native_halo\": \"" << native_halo << "\",\n  \"scaling\": \"" << (s.weak ? "weak" : "strong")
      << "\",\n  \"iterations\": " << s.iterations << ",\n  \"repetitions\": " << s.repetitions << ",\n  \"rows\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i)
    out << R"(    {"m": )" << rows[i].m << R"(, "name": ")" << rows[i].name << R"(", "microseconds": )" << rows[i].us
        << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
  out << "  ]\n}\n";
  if (!out) throw std::runtime_error("ksync_mpi_bench: could not write --json=" + s.json);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Kokkos::ScopeGuard guard(argc, argv);
    try {
      const settings s = parse(argc, argv);
      const exec_t exec;
#if KSYNC_MPI_BENCH_NATIVE
      std::optional<ksync::cuda::node::nccl_communicator> nccl;
      const int own_gpu = ksync::mpi::local_rank(MPI_COMM_WORLD) < ksync::cuda::visible_device_count() ? 1 : 0;
      int every_rank_own_gpu = 0;
      MPI_Allreduce(&own_gpu, &every_rank_own_gpu, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      if (every_rank_own_gpu == 1 && ksync::cuda::node::has_nccl()) {
        nccl.emplace(ksync::cuda::mpi::make_nccl_communicator(MPI_COMM_WORLD));
        bench_nccl = &*nccl;
      }
#endif
      std::vector<row> rows;
      auto path = s.halo;
      for (const std::int64_t m : s.sizes) {
        const auto part = measure(exec, s, m, path);
        rows.insert(rows.end(), part.begin(), part.end());
      }
      if (ksync::mpi::rank_of(MPI_COMM_WORLD) == 0) report(s, rows, ksync::mpi::size_of(MPI_COMM_WORLD), path);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "%s\n", error.what());
      status = 1;
    }
  }
  if (status != 0) MPI_Abort(MPI_COMM_WORLD, status);  // a rank that failed alone would leave the others waiting
  MPI_Finalize();
  return status;
}
