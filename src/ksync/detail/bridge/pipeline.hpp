// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::pipeline (implementation::native) to ksync::cuda::pipeline
// (ksync/cuda/device/pipeline.cuh: its own streams, events and device memory; the host Views' memory as
// spans), in the shape of every bridge file (native_bridge.hpp). The user functor becomes the native kernel,
// so only in translation units compiled as CUDA.
#pragma once

#include <ksync/detail/native_bridge.hpp>
#if KSYNC_NATIVE_BRIDGE && defined(__CUDACC__)
#include <ksync/cuda/device/pipeline.cuh>

#include <cstddef>
#include <span>

namespace ksync::detail {

template <class T>
struct twin_of<"ksync::pipeline", Kokkos::Cuda, T> : twin_for_any_element {};

template <class HostIn, class HostOut, class F>
void twin(operation<"ksync::pipeline"> /*tag*/, const Kokkos::Cuda& /*exec*/, const HostIn& host_in,
          const HostOut& host_out, std::size_t n, const F& f, const pipeline_config& config) {
  using In = typename HostIn::non_const_value_type;
  using Out = typename HostOut::non_const_value_type;
  (void)ksync::cuda::pipeline(std::span<const In>(host_in.data(), n), std::span<Out>(host_out.data(), n), n, f, config);
}

}  // namespace ksync::detail
#endif
