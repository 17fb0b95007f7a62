// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/runtime.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <mutex>
#include <system_error>

namespace ksync::cuda {

int visible_device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no driver/device" error for later callers
    return 0;
  }
  return count;
}

int driver_listed_gpu_count() noexcept {
  std::error_code error;
  const std::filesystem::path listing = "/proc/driver/nvidia/gpus";
  if (!std::filesystem::is_directory(listing, error)) return 0;
  int count = 0;
  for (std::filesystem::directory_iterator entry(listing, error), end; !error && entry != end; entry.increment(error)) {
    ++count;
  }
  return count;
}

gpu_presence gpu_presence_here(int required) noexcept {
  return judge_gpu_presence(required, visible_device_count(), driver_listed_gpu_count(),
                            std::getenv("CUDA_VISIBLE_DEVICES") != nullptr);
}

int stream_device(cudaStream_t stream) {
  int device = 0;
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) {
    KSYNC_CUDA_CHECK(cudaGetDevice(&device));
  } else {
    KSYNC_CUDA_CHECK(cudaStreamGetDevice(stream, &device));
  }
  return device;
}

int multiprocessor_count(int device) {
  constexpr int max_cached_devices = 64;
  static std::array<std::atomic<int>, max_cached_devices> cache{};  // 0 = not read yet
  if (device < 0 || device >= max_cached_devices) {
    int count = 0;
    KSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
  }
  int count = cache[device].load(std::memory_order_relaxed);
  if (count == 0) {
    KSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    cache[device].store(count, std::memory_order_relaxed);
  }
  return count;
}

namespace detail {

cudaMemPool_t scratch_pool(int device) {
  constexpr int max_devices = 64;
  check_argument(device >= 0 && device < max_devices, "ksync::cuda::detail::scratch_pool", "device = ", device,
                 " is outside [0, ", max_devices, ")");
  static std::array<cudaMemPool_t, max_devices> pools{};
  static std::mutex creating;
  const std::lock_guard<std::mutex> lock(creating);
  if (pools[device] == nullptr) {
    cudaMemPoolProps properties{};
    properties.allocType = cudaMemAllocationTypePinned;
    properties.location.type = cudaMemLocationTypeDevice;
    properties.location.id = device;
    cudaMemPool_t pool = nullptr;
    KSYNC_CUDA_CHECK(cudaMemPoolCreate(&pool, &properties));
    std::uint64_t keep_everything = std::numeric_limits<std::uint64_t>::max();
    KSYNC_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
    pools[device] = pool;
  }
  return pools[device];
}

}  // namespace detail
}  // namespace ksync::cuda
