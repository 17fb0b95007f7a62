// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::cuda::model_occupancy: worked examples on a described sm_90 device (no GPU needed), then the model
// against cudaOccupancyMaxActiveBlocksPerMultiprocessor over many (kernel, block size, dynamic shared
// memory) configurations on the GPU.
#include "../../support/gpu.hpp"

#include <ksync/cuda/device/occupancy.hpp>
#include <ksync/cuda/error.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ksync::cuda::occupancy_limit;

// The figures of an H100/H200 (sm_90) as cudaGetDeviceProperties reports them.
cudaDeviceProp hopper() {
  cudaDeviceProp properties{};
  properties.major = 9;
  properties.minor = 0;
  properties.maxThreadsPerMultiProcessor = 2048;
  properties.maxThreadsPerBlock = 1024;
  properties.maxBlocksPerMultiProcessor = 32;
  properties.regsPerMultiprocessor = 65536;
  properties.regsPerBlock = 65536;
  properties.sharedMemPerMultiprocessor = 233472;
  properties.sharedMemPerBlock = 49152;
  properties.sharedMemPerBlockOptin = 232448;
  properties.reservedSharedMemPerBlock = 1024;
  return properties;
}

cudaFuncAttributes kernel_with(int registers, std::size_t static_shared = 0) {
  cudaFuncAttributes attributes{};
  attributes.numRegs = registers;
  attributes.sharedSizeBytes = static_shared;
  attributes.maxThreadsPerBlock = 1024;
  attributes.maxDynamicSharedSizeBytes = static_cast<int>(49152 - static_shared);
  attributes.preferredShmemCarveout = -1;
  return attributes;
}

TEST(OccupancyModel, WorkedExamplesOnHopperNameTheBindingLimit) {
  const auto model = [](int registers, int block_size, std::size_t dynamic, std::size_t static_shared = 0) {
    return ksync::cuda::model_occupancy(hopper(), kernel_with(registers, static_shared), block_size, dynamic);
  };
  // 256 threads, 32 registers: 8 warps a block, 64 warp slots -> 8 blocks; registers allow 8 too (a tie
  // names the warps).
  auto report = model(32, 256, 0);
  EXPECT_EQ(report.blocks_per_multiprocessor, 8);
  EXPECT_EQ(report.binding, occupancy_limit::warps);
  EXPECT_EQ(report.by_registers, 8);
  EXPECT_DOUBLE_EQ(report.occupancy, 1.0);
  // 64 registers: 2048 per warp, 8 warps per sub-partition, 32 warps -> 4 blocks.
  report = model(64, 256, 0);
  EXPECT_EQ(report.blocks_per_multiprocessor, 4);
  EXPECT_EQ(report.binding, occupancy_limit::registers);
  EXPECT_EQ(report.registers_per_warp, 2048);
  // 33 registers round up to 40 per thread (1280 per warp): 12 warps per sub-partition -> 48 warps -> 6.
  report = model(33, 256, 0);
  EXPECT_EQ(report.registers_per_warp, 1280);
  EXPECT_EQ(report.blocks_per_multiprocessor, 6);
  // 40000 bytes of dynamic shared memory + 1 KiB reserved = 41024 -> 41088 allocated; 233472 / 41088 = 5.
  report = model(32, 128, 40000);
  EXPECT_EQ(report.shared_memory_per_block, 41088u);
  EXPECT_EQ(report.blocks_per_multiprocessor, 5);
  EXPECT_EQ(report.binding, occupancy_limit::shared_memory);
  // 32 threads, 16 registers: 64 warps would fit, the 32 block slots bind.
  report = model(16, 32, 0);
  EXPECT_EQ(report.blocks_per_multiprocessor, 32);
  EXPECT_EQ(report.binding, occupancy_limit::blocks);
  // 1024 threads of 128 registers need 131072 registers: no block fits.
  report = model(128, 1024, 0);
  EXPECT_EQ(report.blocks_per_multiprocessor, 0);
  EXPECT_EQ(report.binding, occupancy_limit::registers);
  // More dynamic shared memory than the kernel allows without opting in: refused.
  EXPECT_EQ(model(32, 128, 60000).blocks_per_multiprocessor, 0);
  // A partial warp costs a whole one: 33 threads are 2 warps -> 32 blocks by warps, 32 by slots.
  EXPECT_EQ(model(32, 33, 0).warps_per_block, 2);
  // Too large a block for the device.
  report = model(32, 1056, 0);
  EXPECT_EQ(report.blocks_per_multiprocessor, 0);
  EXPECT_EQ(report.binding, occupancy_limit::block_size);
  // A carveout preference of 25 % (58368 bytes) rounds up to the 64 KiB configuration; 7300 + 1024 bytes
  // allocate as 8448: 65536 / 8448 = 7.
  auto carved = kernel_with(32);
  carved.preferredShmemCarveout = 25;
  report = ksync::cuda::model_occupancy(hopper(), carved, 128, 7300);
  EXPECT_EQ(report.shared_memory_per_multiprocessor, 65536u);
  EXPECT_EQ(report.blocks_per_multiprocessor, 7);
  EXPECT_THROW((void)model(32, 0, 0), std::invalid_argument);
}

// Kernels that differ in what bounds them: few registers, many registers (independent values kept live),
// static shared memory, and dynamic shared memory with the opt-in raised.
__global__ void few_registers(float* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}

template <int Values>
__global__ void many_registers(float* out, float seed) {
  float value[Values];
#pragma unroll
  for (int k = 0; k < Values; ++k)
    value[k] = seed * static_cast<float>(k + 1) + static_cast<float>(threadIdx.x);
#pragma unroll
  for (int round = 0; round < 4; ++round) {
#pragma unroll
    for (int k = 0; k < Values; ++k)
      value[k] = value[k] * value[(k + 1) % Values] + 1.0f;
  }
  float sum = 0;
#pragma unroll
  for (int k = 0; k < Values; ++k)
    sum += value[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

__global__ void static_shared(float* out) {
  __shared__ float tile[6000];  // 24000 bytes
  tile[threadIdx.x] = static_cast<float>(threadIdx.x);
  // Participation: every thread of the block. Data: tile[0, blockDim.x). Publishes each thread's slot to its
  // neighbour.
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

__global__ void dynamic_shared(float* out) {
  extern __shared__ float dynamic[];
  dynamic[threadIdx.x] = static_cast<float>(threadIdx.x);
  // Participation: every thread of the block. Data: dynamic[0, blockDim.x). Publishes each thread's slot.
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = dynamic[(threadIdx.x + 1) % blockDim.x];
}

struct named_kernel {
  const char* name;
  const void* function;
};

TEST(OccupancyModelGpu, EqualsTheOccupancyApiInEveryConfiguration) {
  KSYNC_REQUIRE_GPU();
  int device = 0;
  KSYNC_CUDA_CHECK(cudaGetDevice(&device));
  // The opt-in: dynamic_shared may use up to 150 KiB; few_registers gets a 25 % carveout preference.
  KSYNC_CUDA_CHECK(cudaFuncSetAttribute(dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 150 * 1024));
  KSYNC_CUDA_CHECK(cudaFuncSetAttribute(few_registers, cudaFuncAttributePreferredSharedMemoryCarveout, 25));
  const std::vector<named_kernel> kernels = {{"few_registers", reinterpret_cast<const void*>(few_registers)},
                                             {"many_registers<16>", reinterpret_cast<const void*>(many_registers<16>)},
                                             {"many_registers<48>", reinterpret_cast<const void*>(many_registers<48>)},
                                             {"many_registers<96>", reinterpret_cast<const void*>(many_registers<96>)},
                                             {"static_shared", reinterpret_cast<const void*>(static_shared)},
                                             {"dynamic_shared", reinterpret_cast<const void*>(dynamic_shared)}};
  int compared = 0;
  int refused = 0;
  for (const auto& kernel : kernels) {
    for (const int block_size : {32, 64, 96, 128, 200, 256, 384, 512, 640, 768, 1024}) {
      for (const std::size_t dynamic :
           {std::size_t{0}, std::size_t{3000}, std::size_t{20000}, std::size_t{40000}, std::size_t{100000}}) {
        const auto report = ksync::cuda::model_occupancy(kernel.function, block_size, dynamic, device);
        int api = 0;
        const cudaError_t status =
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api, kernel.function, block_size, dynamic);
        if (status != cudaSuccess) {
          (void)cudaGetLastError();
          api = 0;  // the API refuses what cannot launch; the model must say 0 blocks
        }
        EXPECT_EQ(report.blocks_per_multiprocessor, api)
            << kernel.name << ", " << block_size << " threads, " << dynamic << " bytes: model says "
            << report.blocks_per_multiprocessor << " (" << ksync::cuda::to_string(report.binding) << "; blocks "
            << report.by_blocks << ", warps " << report.by_warps << ", registers " << report.by_registers << ", shared "
            << report.by_shared_memory << "), the API " << api << " (" << cudaGetErrorName(status) << ")";
        ++compared;
        if (api == 0) ++refused;
      }
    }
  }
  EXPECT_GE(compared - refused, 50);
  std::printf("occupancy model = API in %d configurations (%d of them: no block fits)\n", compared, refused);
}

}  // namespace
