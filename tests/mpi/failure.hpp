// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A rank's own work failing mid-call, for the MPI tests: while a failure_at_kernel lives, the Kokkos Tools
// callback of this process's n-th kernel labelled `label` throws std::runtime_error("injected failure in
// <label>"). Tools callbacks are process-wide: one at a time.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace ksync::test {

class failure_at_kernel {
 public:
  failure_at_kernel(std::string label, int n) : label_(std::move(label)), n_(n) {
    current = this;
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(&begin);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(&begin);
  }
  ~failure_at_kernel() {
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(nullptr);
    current = nullptr;
  }
  failure_at_kernel(const failure_at_kernel&) = delete;
  failure_at_kernel& operator=(const failure_at_kernel&) = delete;

 private:
  static inline failure_at_kernel* current = nullptr;
  static void begin(const char* name, std::uint32_t /*device*/, std::uint64_t* /*kernel*/) {
    if (current->label_ == name && ++current->seen_ == current->n_)
      throw std::runtime_error("injected failure in " + current->label_);
  }
  std::string label_;
  int n_;
  int seen_ = 0;
};

}  // namespace ksync::test
