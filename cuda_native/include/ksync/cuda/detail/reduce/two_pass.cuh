// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// reduce_strategy::two_pass: each block writes its partial, a second one-block kernel combines them (the
// kernel boundary is the grid-wide barrier). One block writes the result directly.
#pragma once

#include <ksync/cuda/detail/reduce/kernel.cuh>
#include <ksync/detail/strategy_table.hpp>

namespace ksync::cuda::detail::reduce_strategies {

struct two_pass : one_store_result<reduce_strategy::two_pass> {
  template <int BlockSize, class T, class Op>
  __device__ static void finish(T block_value, T* partials, unsigned int* /*ticket*/, const reduce_target<T>& result,
                                block::shuffle_storage<T, BlockSize>& /*scratch*/, Op /*op*/) {
    if (threadIdx.x != 0) return;
    if (gridDim.x == 1) {
      store_result(result, block_value);
    } else {
      partials[blockIdx.x] = block_value;
    }
  }

  template <int BlockSize, class Reader, class Op>
  static void launch(cudaStream_t stream, const Reader& reader, std::size_t n, Op op,
                     reduce_target<typename Reader::value_type> result, const reduce_tuning& tuning) {
    using T = typename Reader::value_type;
    const reduce_grid grid = plan_reduce_grid<BlockSize, two_pass, Reader, Op>(stream, n, tuning);
    auto* partials = static_cast<T*>(grid.workspace->partials);
    reduce_kernel<BlockSize, two_pass, Reader, Op>
        <<<grid.blocks, BlockSize, 0, stream>>>(reader, n, op, partials, grid.workspace->ticket, result);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::reduce two_pass: pass 1");
    if (grid.blocks > 1) {
      const elements_reader<T, identity_transform> partial_reader{partials, {}, aligned16(partials)};
      reduce_kernel<BlockSize, two_pass, decltype(partial_reader), Op>
          <<<1, BlockSize, 0, stream>>>(partial_reader, grid.blocks, op, partials, grid.workspace->ticket, result);
      KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::reduce two_pass: pass 2");
    }
  }
};

}  // namespace ksync::cuda::detail::reduce_strategies
