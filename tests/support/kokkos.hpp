// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Moving test data between std::vector and Kokkos Views of the default memory space, which
// implementations of an operation the default execution space reaches, and what Kokkos Tools see.
#pragma once

#include <ksync/cg_types.hpp>
#include <ksync/detail/native_bridge.hpp>
#include <ksync/types.hpp>

#if KSYNC_NATIVE_BRIDGE
#include "gpu.hpp"
#endif

#include <Kokkos_Core.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace ksync::test {

template <class T>
Kokkos::View<T*> to_device(const std::vector<T>& host) {
  Kokkos::View<T*> device("ksync::test::data", host.size());
  const Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host_view(host.data(),
                                                                                                     host.size());
  Kokkos::deep_copy(device, host_view);
  return device;
}

template <class View>
std::vector<typename View::non_const_value_type> to_host(const View& device) {
  std::vector<typename View::non_const_value_type> host(device.extent(0));
  const Kokkos::View<typename View::non_const_value_type*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      host_view(host.data(), host.size());
  Kokkos::deep_copy(host_view, device);
  return host;
}

// A choice this device refuses through the bridge: a CG form that needs clusters where they cannot run
// (support/gpu.hpp); no other choice of these enums depends on the device.
template <class Exec, class Choice>
bool refused_through_the_bridge([[maybe_unused]] Choice choice) {
#if KSYNC_NATIVE_BRIDGE
  if constexpr (ksync::has_native_bridge<Exec> && std::is_same_v<Choice, ksync::cg_form>) return refused_here(choice);
#endif
  return false;
}

// Every value of a choice enum (all_segment_forms, ...) that runs on `Exec` here: the portable ones, and the
// native ones where the bridge exists (elsewhere they are refused, which each suite tests on its own) and the
// device runs them (CgClusterRefusalGpu tests that refusal).
template <class Exec, class Choice, std::size_t N>
std::vector<Choice> reachable(const std::array<Choice, N>& all) {
  std::vector<Choice> here;
  for (const auto choice : all)
    if ((!ksync::is_native(choice) || ksync::has_native_bridge<Exec>) && !refused_through_the_bridge<Exec>(choice))
      here.push_back(choice);
  return here;
}

template <class Exec>
std::vector<ksync::implementation> reachable_implementations() {
  return reachable<Exec>(std::array{ksync::implementation::portable, ksync::implementation::native});
}

// The labels Kokkos Tools see while one of these lives: kernels begun (parallel_for, parallel_reduce) and
// regions pushed (where a native kernel runs under the caller's label), each list in order. Tools callbacks
// are process-wide: one at a time.
class tools_labels {
 public:
  tools_labels() {
    current = this;
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(&kernel);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(&kernel);
    Kokkos::Tools::Experimental::set_push_region_callback(&region);
  }
  ~tools_labels() {
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(nullptr);
    Kokkos::Tools::Experimental::set_push_region_callback(nullptr);
    current = nullptr;
  }
  tools_labels(const tools_labels&) = delete;
  tools_labels& operator=(const tools_labels&) = delete;

  std::vector<std::string> kernels;
  std::vector<std::string> regions;
  std::vector<std::string> both;  // kernels and regions, in the order they came

 private:
  static inline tools_labels* current = nullptr;
  static void kernel(const char* name, std::uint32_t /*device*/, std::uint64_t* /*kernel*/) {
    current->kernels.emplace_back(name);
    current->both.emplace_back(name);
  }
  static void region(const char* name) {
    current->regions.emplace_back(name);
    current->both.emplace_back(name);
  }
};

}  // namespace ksync::test

// The first line of each suite's test that its native choices are refused where the bridge does not exist
// (any backend but Kokkos::Cuda with the native half): where it exists they run, and the test skips.
#define KSYNC_SKIP_WHERE_THE_BRIDGE_EXISTS()                           \
  do {                                                                 \
    if (ksync::has_native_bridge<Kokkos::DefaultExecutionSpace>)       \
      GTEST_SKIP() << "ksync-skip: the bridge exists on this backend"; \
  } while (false)
