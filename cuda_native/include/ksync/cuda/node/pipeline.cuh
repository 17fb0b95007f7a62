// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::node::pipeline — the chunked copy/compute/copy pipeline split across the GPUs of a
// device_group: the n elements are cut into one contiguous share per GPU (sizes differ by at most one) and
// each GPU runs its own ksync::cuda::pipeline_plan (device/pipeline.cuh) over its share, with its own
// streams, from its own host thread, so the GPUs' copy engines and links work at the same time. Include from .cu files:
// `f` is a device functor.
//
//   pipeline_plan<T, U> plan(group, n, config)   one plan per GPU, made on that GPU; a share smaller than
//                                                config.chunk_elements becomes a single chunk;
//   plan.run(host_in, host_out, f)               blocking: returns when host_out holds every result; the
//                                                report has each GPU's report and the wall time of the run.
// Pinned host memory is pinned for every GPU (unified addressing makes cudaHostAlloc memory portable).
#pragma once

#include <ksync/cuda/device/pipeline.cuh>
#include <ksync/cuda/node/device_group.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <exception>
#include <memory>
#include <span>
#include <thread>
#include <vector>

namespace ksync::cuda::node {

struct pipeline_report {
  double milliseconds = 0;                            // host wall time of run(), all GPUs
  std::vector<ksync::cuda::pipeline_report> devices;  // one per rank of the group
};

template <class T, class U = T>
class pipeline_plan {
 public:
  pipeline_plan(const device_group& group, std::size_t n, const pipeline_config& config = {})
      : devices_(static_cast<std::size_t>(group.size())),
        offsets_(detail::balanced_offsets(n, static_cast<std::size_t>(group.size()))) {
    detail::check_pipeline_config(n, config);
    for (int r = 0; r < group.size(); ++r) {
      const auto rank = static_cast<std::size_t>(r);
      devices_[rank] = group.device(r);
      const std::size_t share = offsets_[rank + 1] - offsets_[rank];
      pipeline_config own = config;
      own.chunk_elements = std::max<std::size_t>(1, std::min(config.chunk_elements, share));
      const device_guard on(devices_[rank]);
      plans_.push_back(std::make_unique<ksync::cuda::pipeline_plan<T, U>>(share, own));
    }
  }

  [[nodiscard]] std::size_t size() const noexcept { return offsets_.back(); }
  [[nodiscard]] std::size_t share_offset(int rank) const { return offsets_.at(static_cast<std::size_t>(rank)); }

  // host_out[i] = f(host_in[i]) for i in [0, size()); both spans must hold at least size() elements. An
  // exception on any GPU is rethrown once every GPU's thread has finished.
  template <class F>
  pipeline_report run(std::span<const T> host_in, std::span<U> host_out, F f) {
    detail::check_pipeline_buffers(host_in, host_out, size());
    pipeline_report report;
    report.devices.resize(plans_.size());
    std::vector<std::exception_ptr> errors(plans_.size());
    const auto start = std::chrono::steady_clock::now();
    {
      std::vector<std::jthread> workers;
      workers.reserve(plans_.size());
      for (std::size_t r = 0; r < plans_.size(); ++r) {
        workers.emplace_back([&, r] {
          try {
            KSYNC_CUDA_CHECK(cudaSetDevice(devices_[r]));  // this thread's current device
            const std::size_t begin = offsets_[r];
            const std::size_t share = offsets_[r + 1] - begin;
            report.devices[r] = plans_[r]->run(host_in.subspan(begin, share), host_out.subspan(begin, share), f);
          } catch (...) {
            errors[r] = std::current_exception();
          }
        });
      }
    }  // the jthreads join here
    report.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    for (const auto& error : errors)
      if (error) std::rethrow_exception(error);
    return report;
  }

 private:
  std::vector<int> devices_;
  std::vector<std::size_t> offsets_;
  std::vector<std::unique_ptr<ksync::cuda::pipeline_plan<T, U>>> plans_;
};

// A plan for one run.
template <class T, class U, class F>
pipeline_report pipeline(const device_group& group, std::span<const T> host_in, std::span<U> host_out, std::size_t n,
                         F f, const pipeline_config& config = {}) {
  detail::check_pipeline_buffers(host_in, host_out, n);
  return pipeline_plan<T, U>(group, n, config).run(host_in, host_out, f);
}

}  // namespace ksync::cuda::node
