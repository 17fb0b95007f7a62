// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync_round_trip_floor: what one blocking value costs host to host before any reduction of size, and what
// the mailbox's ways of publishing it cost (docs/reductions.md, "The blocking round trip"). One block of 256
// threads sums 2^10 zeros into a slot of mapped pinned memory and the host waits for the value, three ways:
//   kernel_epoch    the kernel writes the value, fences at system scope, then writes the epoch; the host
//                   spins on the epoch;
//   write_value     the kernel writes the value; cuStreamWriteValue32 behind it writes the epoch (what
//                   ksync::cuda::mailbox::publish does);
//   copy_and_sync   the kernel writes device memory; cudaMemcpyAsync and cudaStreamSynchronize bring it home.
// Prints the median, 10th and 90th percentile of 2,800 calls a way (200 warm-up calls dropped), three rounds
// interleaved. Not a Google Benchmark: a probe of one machine's launch floor. Exits 77 without a GPU.
#include <cuda.h>  // the types of cuStreamWriteValue32, reached through the runtime
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void check(cudaError_t status, const char* call, int line) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "ksync_round_trip_floor: %s failed: %s (%s:%d)\n", call, cudaGetErrorString(status), __FILE__,
               line);
  std::exit(1);
}
#define KSYNC_PROBE_CHECK(call) check((call), #call, __LINE__)

constexpr int block_threads = 256;
constexpr int elements = 1 << 10;
constexpr int calls = 3000;
constexpr int warm_up = 200;

struct slot {
  float value;
  std::uint32_t padding[15];  // the epoch on its own 64-byte line
  std::uint32_t epoch;
};

enum class way { kernel_epoch, write_value, copy_and_sync };
constexpr std::array<const char*, 3> way_names = {"kernel_epoch", "write_value", "copy_and_sync"};

__global__ void __launch_bounds__(block_threads)
    sum_into(const float* data, slot* mailbox, float* device_result, std::uint32_t epoch, way how) {
  __shared__ float partials[block_threads];
  float sum = 0;
  for (int i = static_cast<int>(threadIdx.x); i < elements; i += block_threads)  // data bound: elements
    sum += data[i];
  partials[threadIdx.x] = sum;
  for (int half = block_threads / 2; half > 0; half /= 2) {
    // Participation: all 256 threads, every round. Data: partials[0, 2 * half), written by the previous
    // round. Publishes them before the lower half adds the upper.
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < half) partials[threadIdx.x] += partials[threadIdx.x + half];
  }
  if (threadIdx.x != 0) return;
  if (how == way::copy_and_sync) {
    *device_result = partials[0];
    return;
  }
  *static_cast<volatile float*>(&mailbox->value) = partials[0];
  if (how == way::kernel_epoch) {
    __threadfence_system();  // the value reaches the host before the epoch does
    *static_cast<volatile std::uint32_t*>(&mailbox->epoch) = epoch;
  }
}

using write_value_function = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

write_value_function driver_write_value() {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  KSYNC_PROBE_CHECK(
      cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &address, 12000, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess) {
    std::fprintf(stderr, "ksync_round_trip_floor: the driver has no cuStreamWriteValue32\n");
    std::exit(1);
  }
  return reinterpret_cast<write_value_function>(address);
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "ksync_round_trip_floor: no GPU\n");
    return 77;
  }
  const write_value_function write_value = driver_write_value();
  cudaStream_t stream = nullptr;
  KSYNC_PROBE_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* data = nullptr;
  float* device_result = nullptr;
  KSYNC_PROBE_CHECK(cudaMalloc(&data, elements * sizeof(float)));
  KSYNC_PROBE_CHECK(cudaMemset(data, 0, elements * sizeof(float)));
  KSYNC_PROBE_CHECK(cudaMalloc(&device_result, sizeof(float)));
  slot* host_slot = nullptr;
  KSYNC_PROBE_CHECK(cudaHostAlloc(&host_slot, sizeof(slot), cudaHostAllocMapped));
  host_slot->epoch = 0;
  slot* mapped_slot = nullptr;
  KSYNC_PROBE_CHECK(cudaHostGetDevicePointer(&mapped_slot, host_slot, 0));

  std::uint32_t epoch = 0;
  for (int round = 0; round < 3; ++round) {
    for (const way how : {way::kernel_epoch, way::write_value, way::copy_and_sync}) {
      std::vector<double> microseconds;
      for (int call = 0; call < calls; ++call) {
        ++epoch;
        const auto start = std::chrono::steady_clock::now();
        sum_into<<<1, block_threads, 0, stream>>>(data, mapped_slot, device_result, epoch, how);
        float result = 0;
        if (how == way::copy_and_sync) {
          KSYNC_PROBE_CHECK(cudaMemcpyAsync(&result, device_result, sizeof(float), cudaMemcpyDeviceToHost, stream));
          KSYNC_PROBE_CHECK(cudaStreamSynchronize(stream));
        } else {
          if (how == way::write_value &&
              write_value(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(&mapped_slot->epoch), epoch,
                          CU_STREAM_WRITE_VALUE_DEFAULT) != CUDA_SUCCESS) {
            std::fprintf(stderr, "ksync_round_trip_floor: cuStreamWriteValue32 failed\n");
            return 1;
          }
          const std::atomic_ref<std::uint32_t> arrived(host_slot->epoch);
          while (arrived.load(std::memory_order_acquire) != epoch) {
          }
          result = host_slot->value;
        }
        const auto end = std::chrono::steady_clock::now();
        if (result != 0.0f) return 1;  // zeros sum to zero
        if (call >= warm_up) microseconds.push_back(std::chrono::duration<double, std::micro>(end - start).count());
      }
      KSYNC_PROBE_CHECK(cudaGetLastError());
      std::sort(microseconds.begin(), microseconds.end());
      const std::size_t count = microseconds.size();
      std::printf("round %d  %-14s median %.2f us  p10 %.2f  p90 %.2f\n", round, way_names[static_cast<int>(how)],
                  microseconds[count / 2], microseconds[count / 10], microseconds[count * 9 / 10]);
    }
  }
  KSYNC_PROBE_CHECK(cudaFreeHost(host_slot));
  KSYNC_PROBE_CHECK(cudaFree(device_result));
  KSYNC_PROBE_CHECK(cudaFree(data));
  KSYNC_PROBE_CHECK(cudaStreamDestroy(stream));
  return 0;
}
