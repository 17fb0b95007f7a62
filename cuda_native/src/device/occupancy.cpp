// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/device/occupancy.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/strategy_rows.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <mutex>

namespace ksync::cuda {

const char* to_string(occupancy_limit limit) noexcept {
  constexpr const char* names[] = {"blocks", "warps", "registers", "shared_memory", "block_size"};
  return ksync::detail::name_in(names, limit);
}

namespace {

constexpr int warp_size = 32;
constexpr int register_unit = 256;        // registers are allocated per warp in units of 256
constexpr int sub_partitions = 4;         // each holds a quarter of the register file (sm_70 and newer)
constexpr std::size_t shared_unit = 128;  // shared memory is allocated per block in units of 128 bytes (sm_80+)

std::size_t round_up(std::size_t value, std::size_t unit) {
  return (value + unit - 1) / unit * unit;
}

// The shared-memory carveouts (KiB) a multiprocessor can be configured with, by compute capability.
std::initializer_list<std::size_t> carveouts_kib(int major, int minor) {
  static constexpr std::initializer_list<std::size_t> volta = {0, 8, 16, 32, 64, 96};
  static constexpr std::initializer_list<std::size_t> turing = {32, 64};
  static constexpr std::initializer_list<std::size_t> ampere_100 = {0, 8, 16, 32, 64, 100, 132, 164};
  static constexpr std::initializer_list<std::size_t> consumer = {0, 8, 16, 32, 64, 100};
  static constexpr std::initializer_list<std::size_t> hopper = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
  if (major == 7) return minor == 5 ? turing : volta;
  if (major == 8) return minor == 0 || minor == 7 ? ampere_100 : consumer;
  if (major == 12) return consumer;
  return hopper;  // 9.x, 10.x, 11.x
}

// The carveout a multiprocessor is configured with to hold at least `bytes` of shared memory: the smallest
// configuration that large (or the largest one, which the per-block check below then refuses).
std::size_t carveout_at_least(const cudaDeviceProp& properties, std::size_t bytes) {
  std::size_t chosen = 0;
  for (const std::size_t kib : carveouts_kib(properties.major, properties.minor)) {
    chosen = kib * 1024;
    if (chosen >= bytes) break;
  }
  return chosen;
}

}  // namespace

occupancy_report model_occupancy(const cudaDeviceProp& properties, const cudaFuncAttributes& attributes, int block_size,
                                 std::size_t dynamic_shared_bytes) {
  constexpr const char* where = "ksync::cuda::model_occupancy";
  detail::check_argument(block_size >= 1, where, "block_size = ", block_size, " must be at least 1");
  detail::check_argument(properties.major >= 7, where, "compute capability ", properties.major, '.', properties.minor,
                         " is older than the 7.0 the model describes");
  occupancy_report report;
  report.warps_per_block = (block_size + warp_size - 1) / warp_size;
  const int warp_slots = properties.maxThreadsPerMultiProcessor / warp_size;

  // Blocks: the multiprocessor's block slots.
  report.by_blocks = properties.maxBlocksPerMultiProcessor;

  // Warps: whole warps, even for a partial last warp.
  report.by_warps = warp_slots / report.warps_per_block;

  // Registers: per warp in units of 256, from each sub-partition's quarter of the file; the hardware's
  // per-block check counts the block's warps rounded up to the sub-partitions.
  report.registers_per_warp =
      static_cast<int>(round_up(static_cast<std::size_t>(attributes.numRegs) * warp_size, register_unit));
  if (report.registers_per_warp == 0) {
    report.by_registers = INT_MAX;
  } else {
    const int rounded_warps =
        static_cast<int>(round_up(static_cast<std::size_t>(report.warps_per_block), sub_partitions));
    const bool fits_a_block = report.registers_per_warp * rounded_warps <= properties.regsPerBlock &&
                              report.registers_per_warp * report.warps_per_block <= properties.regsPerBlock;
    const int warps_per_sub_partition = properties.regsPerMultiprocessor / sub_partitions / report.registers_per_warp;
    report.by_registers = fits_a_block ? warps_per_sub_partition * sub_partitions / report.warps_per_block : 0;
  }

  // Shared memory: static + dynamic + the driver's reservation, in units of 128 bytes, out of the carveout.
  const std::size_t static_bytes = attributes.sharedSizeBytes + properties.reservedSharedMemPerBlock;
  report.shared_memory_per_block = round_up(static_bytes + dynamic_shared_bytes, shared_unit);
  // A block may use up to sharedMemPerBlock, or the opt-in maximum once the kernel raised its dynamic limit
  // past that (cudaFuncAttributeMaxDynamicSharedMemorySize); the reservation comes on top.
  const bool opted_in = static_bytes + static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes) >
                        properties.sharedMemPerBlock + properties.reservedSharedMemPerBlock;
  const std::size_t block_limit = (opted_in ? properties.sharedMemPerBlockOptin : properties.sharedMemPerBlock) +
                                  properties.reservedSharedMemPerBlock;
  const bool shared_fits = dynamic_shared_bytes <= static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes) &&
                           report.shared_memory_per_block <= block_limit;
  const std::size_t preferred =
      attributes.preferredShmemCarveout < 0
          ? properties.sharedMemPerMultiprocessor
          : carveout_at_least(properties, static_cast<std::size_t>(attributes.preferredShmemCarveout) *
                                              properties.sharedMemPerMultiprocessor / 100);
  // A preference too small for one block is overridden: the driver picks the carveout that holds one.
  report.shared_memory_per_multiprocessor = preferred >= report.shared_memory_per_block
                                                ? preferred
                                                : carveout_at_least(properties, report.shared_memory_per_block);
  if (!shared_fits) {
    report.by_shared_memory = 0;
  } else if (report.shared_memory_per_block == 0) {
    report.by_shared_memory = INT_MAX;
  } else {
    report.by_shared_memory =
        static_cast<int>(report.shared_memory_per_multiprocessor / report.shared_memory_per_block);
  }

  // The smallest limit binds; a block larger than the kernel allows launches nowhere.
  report.blocks_per_multiprocessor = report.by_blocks;
  const auto consider = [&](int limit, occupancy_limit which) {
    if (limit < report.blocks_per_multiprocessor) {
      report.blocks_per_multiprocessor = limit;
      report.binding = which;
    }
  };
  consider(report.by_warps, occupancy_limit::warps);
  consider(report.by_registers, occupancy_limit::registers);
  consider(report.by_shared_memory, occupancy_limit::shared_memory);
  if (block_size > attributes.maxThreadsPerBlock || block_size > properties.maxThreadsPerBlock) {
    report.blocks_per_multiprocessor = 0;
    report.binding = occupancy_limit::block_size;
  }
  report.occupancy = static_cast<double>(report.blocks_per_multiprocessor * report.warps_per_block) / warp_slots;
  return report;
}

namespace detail {

const cudaDeviceProp& device_properties(int device) {
  constexpr int max_cached_devices = 64;
  check_argument(device >= 0 && device < max_cached_devices, "ksync::cuda::detail::device_properties",
                 "device = ", device, " is outside [0, ", max_cached_devices, ")");
  static std::array<std::unique_ptr<cudaDeviceProp>, max_cached_devices> cache;
  static std::mutex reading;
  const std::lock_guard<std::mutex> lock(reading);
  if (!cache[device]) {
    auto properties = std::make_unique<cudaDeviceProp>();
    KSYNC_CUDA_CHECK(cudaGetDeviceProperties(properties.get(), device));
    cache[device] = std::move(properties);
  }
  return *cache[device];
}

cudaFuncAttributes function_attributes(const void* kernel) {
  cudaFuncAttributes attributes{};
  KSYNC_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  return attributes;
}

}  // namespace detail
}  // namespace ksync::cuda
