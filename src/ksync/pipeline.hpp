// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::pipeline — seed 002's overlapped copy/compute with Kokkos alone: host_out(i) = f(host_in(i)) for
// i in [0, n), the data cut into chunks spread over `config.streams` execution-space instances
// (Kokkos::Experimental::partition_space of `exec`): chunk c is copied to the device with
// deep_copy(instance, ...), transformed by a parallel_for on that instance, and copied back. The native twin
// is ksync::cuda::pipeline (cuda_native/include/ksync/cuda/device/pipeline.cuh).
//
//   pipeline(exec, host_in, host_out, n, f[, config])  blocking: fences the instances it created (never
//                                                      `exec` itself or the whole device) and returns when
//                                                      host_out holds every result.
//
// host_in and host_out are rank-1 Views the host can read and write (HostSpace, or
// Kokkos::SharedHostPinnedSpace for copies that overlap kernels on GPU backends). When `exec` can read them
// directly (host backends) there is nothing to copy: each chunk is transformed in place on its instance.
// Kernels are labelled "ksync::pipeline::transform".
#pragma once

#include <ksync/compat.hpp>
#include <ksync/detail/arguments.hpp>
#include <ksync/detail/checks.hpp>
#include <ksync/transform.hpp>  // detail::TransformEach: out(i) = f(in(i))
#include <ksync/types.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ksync {

namespace detail {

template <class View>
inline constexpr bool is_host_view_v =
    Kokkos::is_view_v<View> && compat::view_rank<View> == 1 &&
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename View::memory_space>::accessible;

}  // namespace detail

template <class ExecutionSpace, class HostIn, class HostOut, class F>
void pipeline(const ExecutionSpace& exec, const HostIn& host_in, const HostOut& host_out, std::size_t n, const F& f,
              const pipeline_config& config = {}) {
  static_assert(detail::is_host_view_v<HostIn> && detail::is_host_view_v<HostOut>,
                "ksync::pipeline: host_in and host_out must be rank-1 Views the host can access");
  constexpr const char* where = "ksync::pipeline";
  detail::check_argument(config.streams >= 1, where, "config.streams = ", config.streams, " must be at least 1");
  detail::check_argument(config.chunk_elements >= 1, where, "config.chunk_elements = ", config.chunk_elements,
                         " must be at least 1");
  detail::check_argument(n == 0 || config.chunk_elements <= n, where, "config.chunk_elements = ", config.chunk_elements,
                         " exceeds n = ", n);
  detail::check_argument(host_in.extent(0) >= n, where, "host_in holds ", host_in.extent(0),
                         " elements, fewer than n = ", n);
  detail::check_argument(host_out.extent(0) >= n, where, "host_out holds ", host_out.extent(0),
                         " elements, fewer than n = ", n);
  if (n == 0) return;
  using In = typename HostIn::non_const_value_type;
  using Out = typename HostOut::non_const_value_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  constexpr bool reads_host = Kokkos::SpaceAccessibility<ExecutionSpace, typename HostIn::memory_space>::accessible &&
                              Kokkos::SpaceAccessibility<ExecutionSpace, typename HostOut::memory_space>::accessible;

  const std::vector<ExecutionSpace> instances = compat::partition_space(exec, static_cast<std::size_t>(config.streams));
  const std::size_t chunks = (n + config.chunk_elements - 1) / config.chunk_elements;
  const auto chunk_range = [&](std::size_t c) {
    const std::size_t begin = c * config.chunk_elements;
    return std::pair{begin, std::min(begin + config.chunk_elements, n)};
  };
  const auto instance_of = [&](std::size_t c) -> const ExecutionSpace& { return instances[c % instances.size()]; };
  const auto fence_instances = [&] {
    for (const auto& instance : instances)
      instance.fence("ksync::pipeline: chunks done");
  };

  if constexpr (reads_host) {
    for (std::size_t c = 0; c < chunks; ++c) {
      const auto [begin, end] = chunk_range(c);
      Kokkos::parallel_for("ksync::pipeline::transform",
                           Range(instance_of(c), static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end)),
                           detail::TransformEach<HostIn, HostOut, F>{host_in, host_out, f});
    }
    fence_instances();
  } else {
    using DeviceIn = Kokkos::View<In*, typename ExecutionSpace::memory_space>;
    using DeviceOut = Kokkos::View<Out*, typename ExecutionSpace::memory_space>;
    const DeviceIn device_in(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::pipeline::in"), n);
    const DeviceOut device_out(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::pipeline::out"), n);
    exec.fence("ksync::pipeline: device buffers allocated");  // the instances below may run before `exec`
    const auto copy_in = [&](std::size_t c) {
      const auto range = chunk_range(c);
      Kokkos::deep_copy(instance_of(c), Kokkos::subview(device_in, range), Kokkos::subview(host_in, range));
    };
    const auto compute = [&](std::size_t c) {
      const auto [begin, end] = chunk_range(c);
      Kokkos::parallel_for("ksync::pipeline::transform",
                           Range(instance_of(c), static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end)),
                           detail::TransformEach<DeviceIn, DeviceOut, F>{device_in, device_out, f});
    };
    const auto copy_out = [&](std::size_t c) {
      const auto range = chunk_range(c);
      Kokkos::deep_copy(instance_of(c), Kokkos::subview(host_out, range), Kokkos::subview(device_out, range));
    };
    if (config.order == issue_order::depth_first) {
      for (std::size_t c = 0; c < chunks; ++c) {
        copy_in(c);
        compute(c);
        copy_out(c);
      }
    } else {
      for (std::size_t c = 0; c < chunks; ++c)
        copy_in(c);
      for (std::size_t c = 0; c < chunks; ++c)
        compute(c);
      for (std::size_t c = 0; c < chunks; ++c)
        copy_out(c);
    }
    fence_instances();  // before the device Views go out of scope: every instance must be done with them
  }
}

}  // namespace ksync
