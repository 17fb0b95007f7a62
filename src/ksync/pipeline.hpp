// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::pipeline — overlapped copy/compute with Kokkos alone: host_out(i) = f(host_in(i)) for
// i in [0, n), the data cut into chunks spread over `config.streams` execution-space instances
// (partition_space of `exec`; on an OpenMP instance with fewer threads than streams, the streams share its
// threads' instances, ksync/compat.hpp): chunk c is copied to the device with
// deep_copy(instance, ...), transformed by a parallel_for on that instance, and copied back. The native twin
// is ksync::cuda::pipeline (cuda_native/include/ksync/cuda/device/pipeline.cuh).
//
//   pipeline_plan<Exec, In, Out> plan(exec, n, config)  the instances and device Views for n elements;
//   plan.run(host_in, host_out, f)                      blocking: fences the plan's instances (never `exec`
//                                                       or the whole device), returns when host_out holds
//                                                       every result;
//   pipeline(exec, host_in, host_out, n, f[, config[, how]])  a plan made for one run; how =
//                                                       implementation::native runs ksync::cuda::pipeline.
//
// host_in and host_out are rank-1 Views the host can read and write (HostSpace, or
// Kokkos::SharedHostPinnedSpace for copies that overlap kernels on GPU backends). On host backends, whose
// memory is the host's, there is nothing to copy: each chunk is transformed in place on its instance.
// Kernels are labelled "ksync::pipeline::transform".
#pragma once

#include <ksync/backend.hpp>  // runs_on_host
#include <ksync/compat.hpp>
#include <ksync/detail/arguments.hpp>
#include <ksync/detail/bridge/pipeline.hpp>
#include <ksync/detail/checks.hpp>
#include <ksync/detail/index_policy.hpp>
#include <ksync/transform.hpp>  // detail::TransformEach: out(i) = f(in(i))
#include <ksync/types.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace ksync {

namespace detail {

template <class View>
inline constexpr bool is_host_view_v =
    Kokkos::is_view_v<View> && compat::view_rank<View> == 1 &&
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename View::memory_space>::accessible;

}  // namespace detail

// The execution space's instances and device Views for n elements, made once (allocation and instance
// creation cost more than a chunk); run() as often as needed. In and Out: the element types.
template <class ExecutionSpace, class In, class Out = In>
class pipeline_plan {
 public:
  // Throws std::invalid_argument for config.streams < 1, config.chunk_elements < 1 or > n (n > 0), or an
  // order that is no issue_order.
  pipeline_plan(const ExecutionSpace& exec, std::size_t n, const pipeline_config& config = {})
      : n_(n), config_(config) {
    detail::check_pipeline_config(where, n, config);
    if (n == 0) return;
    instances_ = compat::partition_space(exec, static_cast<std::size_t>(config.streams));
    if constexpr (copies_chunks) {
      device_in_ = DeviceIn(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::pipeline::in"), n);
      device_out_ = DeviceOut(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, "ksync::pipeline::out"), n);
      exec.fence("ksync::pipeline: device buffers allocated");  // the instances may run before `exec`
    }
  }

  [[nodiscard]] std::size_t size() const noexcept { return n_; }
  [[nodiscard]] const pipeline_config& config() const noexcept { return config_; }

  // host_out(i) = f(host_in(i)) for i in [0, size()): rank-1 host-accessible Views of In and Out holding at
  // least size() elements. Blocking: fences the plan's instances (never `exec` or the whole device), also
  // before an exception from a call midway leaves.
  template <class HostIn, class HostOut, class F>
  void run(const HostIn& host_in, const HostOut& host_out, const F& f) {
    static_assert(detail::is_host_view_v<HostIn> && detail::is_host_view_v<HostOut>,
                  "ksync::pipeline: host_in and host_out must be rank-1 Views the host can access");
    static_assert(std::is_same_v<typename HostIn::non_const_value_type, In> &&
                      std::is_same_v<typename HostOut::non_const_value_type, Out>,
                  "ksync::pipeline_plan::run: the Views' element types must be the plan's In and Out");
    detail::check_argument(host_in.extent(0) >= n_, where, "host_in holds ", host_in.extent(0),
                           " elements, fewer than n = ", n_);
    detail::check_argument(host_out.extent(0) >= n_, where, "host_out holds ", host_out.extent(0),
                           " elements, fewer than n = ", n_);
    if (n_ == 0) return;
    const std::size_t chunks = (n_ + config_.chunk_elements - 1) / config_.chunk_elements;
    const auto chunk_range = [&](std::size_t c) {
      const std::size_t begin = c * config_.chunk_elements;
      return std::pair{begin, std::min(begin + config_.chunk_elements, n_)};
    };
    const auto instance_of = [&](std::size_t c) -> const ExecutionSpace& { return instances_[c % instances_.size()]; };
    const auto transform = [&](std::size_t c, const auto& in, const auto& out) {
      const auto [begin, end] = chunk_range(c);
      Kokkos::parallel_for(
          "ksync::pipeline::transform",
          detail::index_policy<ExecutionSpace>(instance_of(c), static_cast<std::int64_t>(begin),
                                               static_cast<std::int64_t>(end)),
          detail::TransformEach<std::remove_cvref_t<decltype(in)>, std::remove_cvref_t<decltype(out)>, F>{in, out, f});
    };
    const auto issue = [&] {
      if constexpr (!copies_chunks) {
        // The host views are the execution space's own memory: nothing to copy, each chunk in place.
        for (std::size_t c = 0; c < chunks; ++c)
          transform(c, host_in, host_out);
      } else {
        const auto copy_in = [&](std::size_t c) {
          const auto range = chunk_range(c);
          Kokkos::deep_copy(instance_of(c), Kokkos::subview(device_in_, range), Kokkos::subview(host_in, range));
        };
        const auto copy_out = [&](std::size_t c) {
          const auto range = chunk_range(c);
          Kokkos::deep_copy(instance_of(c), Kokkos::subview(host_out, range), Kokkos::subview(device_out_, range));
        };
        if (config_.order == issue_order::depth_first) {
          for (std::size_t c = 0; c < chunks; ++c) {
            copy_in(c);
            transform(c, device_in_, device_out_);
            copy_out(c);
          }
        } else {
          for (std::size_t c = 0; c < chunks; ++c)
            copy_in(c);
          for (std::size_t c = 0; c < chunks; ++c)
            transform(c, device_in_, device_out_);
          for (std::size_t c = 0; c < chunks; ++c)
            copy_out(c);
        }
      }
    };
    try {
      issue();
    } catch (...) {
      // A call failed midway (Kokkos throws, say, for memory it cannot get): what was issued before still
      // reads host_in and writes host_out. Let it finish before the caller's Views can go.
      fence_after_failure();
      throw;
    }
    for (const auto& instance : instances_)
      instance.fence("ksync::pipeline: chunks done");
  }

 private:
  // Every instance fenced; a fence that fails too is passed over (the first failure is the one to report).
  void fence_after_failure() const noexcept {
    for (const auto& instance : instances_) {
      try {
        instance.fence("ksync::pipeline: chunks issued before a failure done");
      } catch (...) {  // NOLINT(bugprone-empty-catch): the exception being handled is the one to report
      }
    }
  }

  static constexpr const char* where = "ksync::pipeline";
  // GPU backends; on host backends the execution space's memory is the host's, so host Views need no copy.
  static constexpr bool copies_chunks = !runs_on_host<ExecutionSpace>;
  using DeviceIn = Kokkos::View<In*, typename ExecutionSpace::memory_space>;
  using DeviceOut = Kokkos::View<Out*, typename ExecutionSpace::memory_space>;

  std::size_t n_ = 0;
  pipeline_config config_;
  std::vector<ExecutionSpace> instances_;
  DeviceIn device_in_;
  DeviceOut device_out_;
};

// A plan for one run: host_out(i) = f(host_in(i)) for i in [0, n). With implementation::native on
// Kokkos::Cuda (from a translation unit compiled as CUDA), ksync::cuda::pipeline runs it through the bridge:
// its own streams, events and device memory, the host Views' memory as it is (contiguous Views only).
template <class ExecutionSpace, class HostIn, class HostOut, class F>
void pipeline(const ExecutionSpace& exec, const HostIn& host_in, const HostOut& host_out, std::size_t n, const F& f,
              const pipeline_config& config = {}, implementation how = implementation::portable) {
  constexpr const char* where = "ksync::pipeline";
  static_assert(detail::is_host_view_v<HostIn> && detail::is_host_view_v<HostOut>,
                "ksync::pipeline: host_in and host_out must be rank-1 Views the host can access");
  if (detail::runs_native<"ksync::pipeline", ExecutionSpace, typename HostOut::non_const_value_type>(
          where, how, /*needs_cuda_compiler=*/true)) {
    detail::check_argument(host_in.extent(0) >= n, where, "host_in holds ", host_in.extent(0),
                           " elements, fewer than n = ", n);
    detail::check_argument(host_out.extent(0) >= n, where, "host_out holds ", host_out.extent(0),
                           " elements, fewer than n = ", n);
    detail::check_contiguous(where, "host_in", host_in);
    detail::check_contiguous(where, "host_out", host_out);
    detail::native<"ksync::pipeline", typename HostOut::non_const_value_type>(exec, host_in, host_out, n, f, config);
    return;
  }
  pipeline_plan<ExecutionSpace, typename HostIn::non_const_value_type, typename HostOut::non_const_value_type> plan(
      exec, n, config);
  plan.run(host_in, host_out, f);
}

}  // namespace ksync
