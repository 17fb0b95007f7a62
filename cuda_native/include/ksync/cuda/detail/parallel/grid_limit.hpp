// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The most blocks one launch's grid holds along x (CUDA's limit on every device ksync builds for), which
// bounds the n that the index strategies with a block per share of indices can take in one launch.
#pragma once

#include <ksync/detail/arguments.hpp>

#include <cstdint>

namespace ksync::cuda::detail {

inline constexpr std::int64_t max_grid_blocks = 2'147'483'647;  // 2^31 - 1

// Refuses, naming n, a launch of `strategy` that would need more blocks than a grid holds (n beyond about
// 5.5e11 indices for thread_per_index, 2.2e12 for block_batched); grid_stride takes any n.
template <class Index>
void check_grid_fits(const char* strategy, Index n, std::int64_t blocks) {
  ksync::detail::check_argument(blocks <= max_grid_blocks, "ksync::cuda::parallel_for", "n = ", n, " needs ", blocks,
                                " blocks of strategy ", strategy, ", more than a grid holds (", max_grid_blocks,
                                "); grid_stride takes any n");
}

}  // namespace ksync::cuda::detail
