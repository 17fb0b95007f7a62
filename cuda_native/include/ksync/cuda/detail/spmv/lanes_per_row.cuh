// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// spmv_strategy::lanes_per_row (native) — a group of Width lanes (2..32, a power of two: spmv_group_width,
// a quarter of the mean row length) folds one row: lane l of the group sums the entries l, l + Width, ...
// (csr_row_share, ksync/csr.hpp), so that the group's loads of values and columns coalesce, and the group
// adds its lanes' shares with __shfl_xor_sync over the group's own mask. Groups are aligned within their warp
// and walk the rows in a grid-stride loop.
#pragma once

#include <ksync/csr.hpp>
#include <ksync/cuda/csr_matrix.hpp>
#include <ksync/cuda/detail/spmv/reader.cuh>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/warp/reduce.cuh>
#include <ksync/detail/spmv_choice.hpp>
#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace ksync::cuda::detail {

template <int BlockSize, int Width, class T, class Index, class Offset>
__global__ void __launch_bounds__(BlockSize)
    spmv_lanes_per_row(std::int64_t rows, const Offset* __restrict__ row_offsets, const Index* __restrict__ columns,
                       const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y) {
  static_assert(Width >= 2 && Width <= 32 && (Width & (Width - 1)) == 0 && BlockSize % 32 == 0,
                "ksync::cuda::spmv: a group is a power of two of lanes within one warp");
  constexpr int groups_per_block = BlockSize / Width;
  const int member = static_cast<int>(threadIdx.x) % Width;  // the lane's place in its group
  // The group's lanes within the warp: Width consecutive lanes starting at a multiple of Width.
  const unsigned group_mask = warp::lanes_mask(Width) << (warp::lane_id() / Width * Width);
  // The row index is the same for every lane of a group, so a group enters and leaves the loop as one: each
  // lane of group_mask reaches every shuffle below, and no lane outside it is named.
  for (std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * groups_per_block + threadIdx.x / Width; row < rows;
       row += static_cast<std::int64_t>(gridDim.x) * groups_per_block) {
    // Data bound: csr_row_share reads only entries before the row's end; a lane without any holds 0.
    T sum = ksync::detail::csr_row_share<T>(row_offsets, columns, values, x_reader<T>{x}, row, member, Width);
#pragma unroll
    for (int offset = Width / 2; offset > 0; offset /= 2)
      // Participation: the Width lanes of group_mask, every round (the loop above keeps them together).
      // Data: every lane holds a partial sum (0 past the row's end). A butterfly: after the last round every
      // lane holds the group's sum; it publishes nothing beyond the group.
      sum += __shfl_xor_sync(group_mask, sum, offset);
    if (member == 0) y[row] = sum;  // one store per row
  }
}

namespace spmv_strategies {

struct lanes_per_row : ksync::detail::implements<spmv_strategy::lanes_per_row> {
  static constexpr int block_size = 256;
  static constexpr std::array<int, 5> widths{2, 4, 8, 16, 32};  // every value spmv_group_width gives

  template <class T, class Index, class Offset>
  static void launch(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, const T* x, T* y) {
    launch_width(ksync::detail::spmv_group_width(a.rows(), a.nnz()), std::make_index_sequence<widths.size()>{}, stream,
                 a, x, y);
    KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::spmv (lanes_per_row)");
  }

 private:
  // Launches the kernel compiled for `width` (one of widths: spmv_group_width gives no other).
  template <class T, class Index, class Offset, std::size_t... Each>
  static void launch_width(int width, std::index_sequence<Each...> /*widths*/, cudaStream_t stream,
                           const csr_matrix<T, Index, Offset>& a, const T* x, T* y) {
    ((width == widths[Each] ? launch_as<widths[Each]>(stream, a, x, y) : void()), ...);
  }
  template <int Width, class T, class Index, class Offset>
  static void launch_as(cudaStream_t stream, const csr_matrix<T, Index, Offset>& a, const T* x, T* y) {
    constexpr int groups_per_block = block_size / Width;
    const std::int64_t blocks = std::min<std::int64_t>((a.rows() + groups_per_block - 1) / groups_per_block, INT_MAX);
    spmv_lanes_per_row<block_size, Width><<<static_cast<unsigned int>(blocks), block_size, 0, stream>>>(
        a.rows(), a.row_offsets(), a.columns(), a.values(), x, y);
  }
};

}  // namespace spmv_strategies
}  // namespace ksync::cuda::detail
