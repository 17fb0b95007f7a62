// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Moving test data between std::vector and Kokkos Views of the default memory space.
#pragma once

#include <Kokkos_Core.hpp>

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

}  // namespace ksync::test
