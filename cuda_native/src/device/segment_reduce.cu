// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/detail/segment_reduce/forms.cuh>
#include <ksync/cuda/device/segment_reduce.hpp>
#include <ksync/cuda/error.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace ksync::cuda::detail {
namespace {

template <int BlockSize, class Form, class Op, class T>
__global__ void __launch_bounds__(BlockSize)
    segment_reduce_kernel(const T* __restrict__ data, std::size_t n, T* __restrict__ out) {
  __shared__ typename Form::template storage<T, BlockSize> scratch;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * BlockSize + threadIdx.x;
  // Data bound: only i < n loads; the others contribute the identity and still reach every barrier of the
  // block reduction (its participation bound is the whole block).
  const T value = i < n ? data[i] : Op::template identity<T>();
  const T result = Form::template reduce<BlockSize>(value, scratch, Op{});
  if (threadIdx.x == 0) out[blockIdx.x] = result;
}

template <int BlockSize, class T>
void launch(cudaStream_t stream, const T* data, std::size_t n, reduce_op op, segment_form form, T* out,
            unsigned blocks) {
  with_operator(op, [&](auto op_tag) {
    native_segment_forms::dispatch("ksync::cuda::segment_reduce", form, [&]<class Form>() {
      segment_reduce_kernel<BlockSize, Form, decltype(op_tag)><<<blocks, BlockSize, 0, stream>>>(data, n, out);
    });
  });
  KSYNC_CUDA_CHECK_LAUNCH("segment_reduce_kernel");
}

// Launches the kernel compiled for `segment_size`. The sizes come from segment_reduce_sizes alone, so the
// list of compiled sizes, the check and the dispatch cannot drift apart.
template <class T, std::size_t... Index>
void launch_compiled_size(int segment_size, std::index_sequence<Index...> /*sizes*/, cudaStream_t stream, const T* data,
                          std::size_t n, reduce_op op, segment_form form, T* out, unsigned blocks) {
  ((segment_size == segment_reduce_sizes[Index]
        ? launch<segment_reduce_sizes[Index]>(stream, data, n, op, form, out, blocks)
        : void()),
   ...);
}

std::string compiled_sizes() {
  std::string list;
  for (const int size : segment_reduce_sizes)
    list += (list.empty() ? "" : ", ") + std::to_string(size);
  return list;
}

}  // namespace

template <class T>
void segment_reduce(cudaStream_t stream, const T* data, std::size_t n, int segment_size, reduce_op op,
                    segment_form form, T* out) {
  check_argument(std::ranges::find(segment_reduce_sizes, segment_size) != segment_reduce_sizes.end(),
                 "ksync::cuda::segment_reduce", "segment_size = ", segment_size, " is not compiled in; use one of ",
                 compiled_sizes());
  check_argument(is_known(form), "ksync::cuda::segment_reduce", "form = ", static_cast<int>(form),
                 " is not a segment_form");
  check_argument(runs_in(form, strategy_half::native), "ksync::cuda::segment_reduce", "form = ", to_string(form),
                 " is portable (Kokkos); ksync::cuda runs ", names_of_half<segment_form>{strategy_half::native});
  check_argument((data != nullptr && out != nullptr) || n == 0, "ksync::cuda::segment_reduce",
                 "data or out is null but n = ", n);
  if (n == 0) return;
  const std::size_t segments =
      (n + static_cast<std::size_t>(segment_size) - 1) / static_cast<std::size_t>(segment_size);
  check_argument(segments <= static_cast<std::size_t>(INT_MAX), "ksync::cuda::segment_reduce", "n = ", n,
                 " needs more blocks than a grid holds");
  launch_compiled_size(segment_size, std::make_index_sequence<segment_reduce_sizes.size()>{}, stream, data, n, op, form,
                       out, static_cast<unsigned>(segments));
}

template void segment_reduce<std::int32_t>(cudaStream_t, const std::int32_t*, std::size_t, int, reduce_op, segment_form,
                                           std::int32_t*);
template void segment_reduce<std::int64_t>(cudaStream_t, const std::int64_t*, std::size_t, int, reduce_op, segment_form,
                                           std::int64_t*);
template void segment_reduce<float>(cudaStream_t, const float*, std::size_t, int, reduce_op, segment_form, float*);
template void segment_reduce<double>(cudaStream_t, const double*, std::size_t, int, reduce_op, segment_form, double*);

}  // namespace ksync::cuda::detail
