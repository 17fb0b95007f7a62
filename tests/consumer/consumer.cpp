// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Uses both halves of an installed ksync; exits non-zero on a wrong answer.
#include <ksync/ksync.hpp>
#ifdef CONSUMER_HAS_CUDA_NATIVE
#include <ksync/cuda/detail/device_buffer.hpp>
#include <ksync/cuda/detail/runtime.hpp>
#include <ksync/cuda/device/reduce.hpp>
#endif

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  const Kokkos::ScopeGuard kokkos(argc, argv);
  const Kokkos::View<int*> data("consumer::data", 1000);
  Kokkos::deep_copy(data, 3);
  const int portable = ksync::reduce(Kokkos::DefaultExecutionSpace{}, data);
  std::printf("ksync %s: portable sum = %d (expected 3000)\n", KSYNC_VERSION_STRING, portable);
  if (portable != 3000) return 1;
#ifdef CONSUMER_HAS_CUDA_NATIVE
  if (ksync::cuda::visible_device_count() > 0) {
    const ksync::cuda::device_buffer<int> buffer(std::vector<int>(1000, 3));
    const int native = ksync::cuda::reduce(cudaStreamPerThread, buffer.data(), buffer.size());
    std::printf("native sum = %d (expected 3000)\n", native);
    if (native != 3000) return 1;
  } else {
    std::printf("ksync::cuda_native linked; no CUDA GPU visible, so the native call was not made\n");
  }
#endif
  return 0;
}
