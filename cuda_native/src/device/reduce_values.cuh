// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The compiled entry points of ksync::cuda::reduce and dot (device/reduce.hpp), instantiated once per value
// type by reduce_<type>.cu, so that the four types compile in parallel. Private to those files; the
// strategies they dispatch to are in ksync/cuda/detail/reduce/.
#pragma once

#include <ksync/cuda/device/reduce.cuh>

#include <cstddef>

namespace ksync::cuda::detail {

template <class T>
void reduce_values(cudaStream_t stream, const T* data, std::size_t n, reduce_op op, reduce_strategy strategy,
                   reduce_target<T> result, const reduce_tuning& tuning) {
  const elements_reader<T, identity_transform> reader{data, {}, aligned16(data)};
  with_operator(op, [&](auto functor) { enqueue_reduce(stream, reader, n, functor, strategy, result, tuning); });
}

template <class T>
void dot_values(cudaStream_t stream, const T* x, const T* y, std::size_t n, reduce_strategy strategy,
                reduce_target<T> result, const reduce_tuning& tuning) {
  const products_reader<T> reader{x, y, aligned16(x) && aligned16(y)};
  enqueue_reduce(stream, reader, n, plus{}, strategy, result, tuning);
}

}  // namespace ksync::cuda::detail

#define KSYNC_INSTANTIATE_REDUCE_VALUES(T)                                                                           \
  template void ksync::cuda::detail::reduce_values<T>(cudaStream_t, const T*, std::size_t, ksync::reduce_op,         \
                                                      ksync::reduce_strategy, ksync::cuda::detail::reduce_target<T>, \
                                                      const ksync::cuda::reduce_tuning&);                            \
  template void ksync::cuda::detail::dot_values<T>(cudaStream_t, const T*, const T*, std::size_t,                    \
                                                   ksync::reduce_strategy, ksync::cuda::detail::reduce_target<T>,    \
                                                   const ksync::cuda::reduce_tuning&);
