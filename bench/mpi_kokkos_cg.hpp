// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The baseline of ksync_mpi_bench: CG across MPI ranks as a Kokkos application writes it, without ksync. Each
// iteration exchanges the halo of p (pack, copy to the host mirror, MPI_Irecv/MPI_Isend/MPI_Waitall, copy the
// ghosts back behind the owned entries), multiplies every owned row, and takes each dot as a parallel_reduce into
// a host double followed by a blocking MPI_Allreduce. The mirrors are Kokkos::create_mirror_view's: pageable host
// memory on a GPU (where ksync stages through pinned memory, or hands a GPU-aware MPI device memory), the Views
// themselves on host backends (the messages leave from and land in p). It reads the rank's rows and halo plan
// from a ksync::mpi::distributed_csr (local column indices, ghosts after the owned entries), as an application
// reads its own; its vector steps are the one-device baseline's (bench/kokkos_cg_steps.hpp).
#pragma once

#include "kokkos_cg_steps.hpp"

#include <ksync/mpi/spmv.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ksync::bench::mpi_baseline {

namespace steps = ksync::bench::kokkos_cg;  // the one-device baseline's vector steps

class kokkos_cg {
 public:
  using Exec = ksync::bench::Exec;
  using Vector = steps::Vector;
  using Policy = steps::Policy;
  using Matrix = ksync::mpi::distributed_csr<double, std::int32_t, Exec::memory_space>;

  kokkos_cg(Exec exec, MPI_Comm comm, const Matrix& a)
      : exec_(std::move(exec)),
        comm_(comm),
        a_(a),
        r_("ksync::bench::mpi::kokkos::r", a.owned_rows()),
        p_("ksync::bench::mpi::kokkos::p", a.local_columns()),
        ap_("ksync::bench::mpi::kokkos::ap", a.owned_rows()),
        send_("ksync::bench::mpi::kokkos::send", a.plan().sends.size()),
        send_host_(Kokkos::create_mirror_view(send_)),
        ghosts_(Kokkos::subview(p_, Kokkos::make_pair(a.owned_rows(), a.local_columns()))),
        ghosts_host_(Kokkos::create_mirror_view(ghosts_)) {
    requests_.reserve(a.plan().source_ranks.size() + a.plan().target_ranks.size());
  }

  // Solves A x = b from x's values for `iterations` iterations unless ||r|| <= tolerance ||b|| first; x holds the
  // owned entries. Returns the iterations taken.
  int solve(const Vector& b, const Vector& x, int iterations, double tolerance) {
    const std::int64_t n = a_.owned_rows();
    const auto owned = Kokkos::make_pair(std::int64_t{0}, n);
    const auto p_owned = Kokkos::subview(p_, owned);
    // r = b - A x, through p (which has room for the ghosts): p = x, exchange, Ap = A p.
    Kokkos::deep_copy(exec_, p_owned, x);
    apply();
    const Vector r = r_, ap = ap_;
    Kokkos::parallel_for(
        "ksync::bench::mpi::kokkos::residual", Policy(exec_, 0, n),
        KOKKOS_LAMBDA(std::int64_t i) { r(i) = b(i) - ap(i); });
    Kokkos::deep_copy(exec_, p_owned, r);
    const double bb = dot("ksync::bench::mpi::kokkos::b_b", b, b);
    double rr = dot("ksync::bench::mpi::kokkos::r_r", r, r);
    int taken = 0;
    for (; taken < iterations && std::sqrt(rr) > tolerance * std::sqrt(bb); ++taken) {
      apply();
      const double alpha = rr / dot("ksync::bench::mpi::kokkos::p_ap", p_owned, ap);
      Kokkos::parallel_for("ksync::bench::mpi::kokkos::update", Policy(exec_, 0, n),
                           steps::Update{.x = x, .r = r, .p = p_, .ap = ap, .alpha = alpha});
      const double rr_next = dot("ksync::bench::mpi::kokkos::r_r", r, r);
      const double beta = rr_next / rr;
      rr = rr_next;
      Kokkos::parallel_for("ksync::bench::mpi::kokkos::direction", Policy(exec_, 0, n),
                           steps::Direction{.r = r, .p = p_, .beta = beta});
    }
    exec_.fence("ksync::bench::mpi::kokkos: the solve is done");
    return taken;
  }

  // Public: nvcc takes no extended lambda inside a private member function.
  // A global dot: a local parallel_reduce into a host double (it waits for exec), then MPI_Allreduce. Each dot
  // has its own label, so a kernel timer splits p . Ap (two vectors read) from r . r (one).
  double dot(const char* label, const Vector& u, const Vector& v) const {
    double local = 0;
    Kokkos::parallel_reduce(label, Policy(exec_, 0, static_cast<std::int64_t>(u.extent(0))), steps::Dot{.u = u, .v = v},
                            local);
    double global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm_);
    return global;
  }

  // ap = A p over the owned rows, after p's ghosts arrive.
  void apply() {
    exchange();
    const auto offsets = a_.local_matrix().row_offsets();
    const auto columns = a_.local_matrix().columns();
    const auto values = a_.local_matrix().values();
    const Vector p = p_, ap = ap_;
    Kokkos::parallel_for(
        "ksync::bench::mpi::kokkos::product", Policy(exec_, 0, a_.owned_rows()), KOKKOS_LAMBDA(std::int64_t i) {
          double sum = 0;
          for (std::int32_t k = offsets(i); k < offsets(i + 1); ++k)
            sum += values(k) * p(columns(k));
          ap(i) = sum;
        });
  }

  // p's ghosts from the ranks that own them, through the host mirrors.
  void exchange() {
    const halo_plan& plan = a_.plan();
    if (!plan.exchanges()) return;
    const auto sends = a_.send_indices();
    const Vector p = p_, send = send_;
    Kokkos::parallel_for(
        "ksync::bench::mpi::kokkos::pack", Policy(exec_, 0, static_cast<std::int64_t>(plan.sends.size())),
        KOKKOS_LAMBDA(std::int64_t k) { send(k) = p(sends(k)); });
    Kokkos::deep_copy(exec_, send_host_, send_);
    exec_.fence("ksync::bench::mpi::kokkos: the halo is packed");
    std::vector<MPI_Request>& requests = requests_;
    requests.clear();
    for (std::size_t s = 0; s < plan.source_ranks.size(); ++s) {
      const std::int64_t first = plan.source_offsets[s];
      requests.emplace_back();
      MPI_Irecv(ghosts_host_.data() + first, static_cast<int>(plan.source_offsets[s + 1] - first), MPI_DOUBLE,
                plan.source_ranks[s], 4245, comm_, &requests.back());
    }
    for (std::size_t t = 0; t < plan.target_ranks.size(); ++t) {
      const std::int64_t first = plan.target_offsets[t];
      requests.emplace_back();
      MPI_Isend(send_host_.data() + first, static_cast<int>(plan.target_offsets[t + 1] - first), MPI_DOUBLE,
                plan.target_ranks[t], 4245, comm_, &requests.back());
    }
    if (MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS)
      throw std::runtime_error("ksync::bench::mpi::kokkos: MPI_Waitall of the halo failed");
    Kokkos::deep_copy(exec_, ghosts_, ghosts_host_);
  }

 private:
  Exec exec_;
  MPI_Comm comm_;
  const Matrix& a_;
  Vector r_, p_, ap_, send_;
  decltype(Kokkos::create_mirror_view(std::declval<Vector>())) send_host_;
  decltype(Kokkos::subview(std::declval<Vector>(), std::declval<Kokkos::pair<std::int64_t, std::int64_t>>())) ghosts_;
  decltype(Kokkos::create_mirror_view(ghosts_)) ghosts_host_;
  std::vector<MPI_Request> requests_;
};

}  // namespace ksync::bench::mpi_baseline
