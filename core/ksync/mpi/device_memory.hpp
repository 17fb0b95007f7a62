// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Whether the MPI library reads and writes CUDA device memory itself (a "GPU-aware" or "CUDA-aware" MPI): then
// a halo can travel from and into device buffers; otherwise it is staged through host memory. Needs only
// <mpi.h> (and the MPI's extension header where it has one), so both halves of ksync use it.
//
//   reads_cuda_memory()   what the library says about itself at run time — Open MPI's MPIX_Query_cuda_support
//                         (only where it was built with CUDA: MPIX_CUDA_AWARE_SUPPORT), MPICH's
//                         MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA) — false for a library that has neither
//                         query. The environment variable KSYNC_MPI_GPU_AWARE = 1 or 0 overrides the answer: for
//                         an MPI that reads device memory without a query that says so, or to measure the staged
//                         path. Any other value is refused with std::invalid_argument. Call after MPI_Init.
#pragma once

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI: MPIX_CUDA_AWARE_SUPPORT and MPIX_Query_cuda_support
#endif

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace ksync::mpi {

// The library's own answer, without the override.
[[nodiscard]] inline bool library_reads_cuda_memory() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#elif defined(MPIX_GPU_SUPPORT_CUDA)
  int supported = 0;
  return MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported) == MPI_SUCCESS && supported == 1;
#else
  return false;  // neither query: built without CUDA support (Open MPI), or an MPI that does not say
#endif
}

[[nodiscard]] inline bool reads_cuda_memory() {
  const char* const forced = std::getenv("KSYNC_MPI_GPU_AWARE");
  if (forced == nullptr) return library_reads_cuda_memory();
  const std::string value(forced);
  if (value == "1") return true;
  if (value == "0") return false;
  throw std::invalid_argument("ksync::mpi::reads_cuda_memory: KSYNC_MPI_GPU_AWARE = '" + value +
                              "' (unset it, or set 1 for an MPI that reads CUDA device memory, 0 to stage through "
                              "host memory)");
}

}  // namespace ksync::mpi
