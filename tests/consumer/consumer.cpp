// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Uses an installed ksync: `consumer` calls the portable half (and, built with the mpi component, ksync's
// MPI reduction over the ranks it runs on); `consumer native` calls the native half too and exits 77
// (CTest: skipped) where no CUDA GPU is visible. Exits 1 on a wrong answer.
#include <ksync/ksync.hpp>
#ifdef CONSUMER_HAS_MPI
#include <ksync/mpi.hpp>
#endif
#ifdef CONSUMER_HAS_CUDA_NATIVE
#include <ksync/cuda/device/reduce.hpp>
#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/runtime.hpp>
#endif

#include <cstdio>
#include <string_view>
#include <vector>

int main(int argc, char** argv) {
#ifdef CONSUMER_HAS_MPI
  MPI_Init(&argc, &argv);
  struct finalize_mpi {
    ~finalize_mpi() { MPI_Finalize(); }
  } const mpi_finalizer;
#endif
  const Kokkos::ScopeGuard kokkos(argc, argv);
  const Kokkos::View<int*> data("consumer::data", 1000);
  Kokkos::deep_copy(data, 3);
  const int portable = ksync::reduce(Kokkos::DefaultExecutionSpace{}, data);
  std::printf("ksync %s: portable sum = %d (expected 3000)\n", KSYNC_VERSION_STRING, portable);
  if (portable != 3000) return 1;
#ifdef CONSUMER_HAS_MPI
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int everywhere = ksync::mpi::reduce(Kokkos::DefaultExecutionSpace{}, MPI_COMM_WORLD, data);
  std::printf("ksync::mpi::reduce over %d rank(s) = %d (expected %d)\n", ranks, everywhere, 3000 * ranks);
  if (everywhere != 3000 * ranks) return 1;
#endif
  const bool native_asked = argc > 1 && std::string_view(argv[argc - 1]) == "native";
  if (!native_asked) return 0;
#ifdef CONSUMER_HAS_CUDA_NATIVE
  if (ksync::cuda::visible_device_count() == 0) {
    std::printf("ksync::cuda_native linked; no CUDA GPU visible: the native call is skipped\n");
    return 77;
  }
  const ksync::cuda::device_buffer<int> buffer(std::vector<int>(1000, 3));
  const int native = ksync::cuda::reduce(cudaStreamPerThread, buffer.data(), buffer.size());
  std::printf("native sum = %d (expected 3000)\n", native);
  if (native != 3000) return 1;
#else
  std::printf("consumer: 'native' asked, but the installed ksync has no ksync::cuda_native\n");
  return 1;
#endif
  return 0;
}
