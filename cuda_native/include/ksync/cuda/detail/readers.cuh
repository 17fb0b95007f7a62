// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Readers: what a device-wide reduction folds, element by element (load) or 16 bytes at a time (load_pack,
// which folds the pack's elements with the reduction's operator). `vectorized` is set by the host when every
// input pointer is 16-byte aligned; otherwise only load() is used.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ksync::cuda::detail {

// The elements of T in one 16-byte load.
template <class T>
struct pack16 {
  static constexpr int width = static_cast<int>(16 / sizeof(T));
  T value[width];
};

// One 16-byte read-only load (ld.global.nc.v4.u32); `address` must be 16-byte aligned.
template <class T>
__device__ pack16<T> load_pack16(const T* address) {
  static_assert(sizeof(pack16<T>) == 16, "ksync::cuda: pack16 holds 4-byte or 8-byte types only");
  const int4 raw = __ldg(reinterpret_cast<const int4*>(address));
  pack16<T> pack;
  __builtin_memcpy(&pack, &raw, 16);
  return pack;
}

// One 16-byte store; `address` must be 16-byte aligned. `streaming`: st.global.cs, the written lines are
// evicted first (data not read again soon).
template <class T>
__device__ void store_pack16(T* address, const pack16<T>& pack, bool streaming = false) {
  int4 raw;
  __builtin_memcpy(&raw, &pack, 16);
  if (streaming) {
    __stcs(reinterpret_cast<int4*>(address), raw);
  } else {
    *reinterpret_cast<int4*>(address) = raw;
  }
}

inline bool aligned16(const void* address) {
  return reinterpret_cast<std::uintptr_t>(address) % 16 == 0;
}

struct identity_transform {
  template <class T>
  __host__ __device__ constexpr T operator()(const T& value) const {
    return value;
  }
};

// f(data[i]).
template <class T, class Transform>
struct elements_reader {
  using value_type = T;
  static constexpr int width = pack16<T>::width;
  const T* data;
  Transform transform;
  bool vectorized;

  __device__ T load(std::size_t i) const { return transform(data[i]); }
  template <class Op>
  __device__ T load_pack(std::size_t pack_index, Op op) const {
    const pack16<T> pack = load_pack16(data + pack_index * width);
    T value = transform(pack.value[0]);
#pragma unroll
    for (int k = 1; k < width; ++k)
      value = op(value, transform(pack.value[k]));
    return value;
  }
};

// x[i] * y[i]: the terms of a dot product.
template <class T>
struct products_reader {
  using value_type = T;
  static constexpr int width = pack16<T>::width;
  const T* x;
  const T* y;
  bool vectorized;

  __device__ T load(std::size_t i) const { return x[i] * y[i]; }
  template <class Op>
  __device__ T load_pack(std::size_t pack_index, Op op) const {
    const pack16<T> xs = load_pack16(x + pack_index * width);
    const pack16<T> ys = load_pack16(y + pack_index * width);
    T value = xs.value[0] * ys.value[0];
#pragma unroll
    for (int k = 1; k < width; ++k)
      value = op(value, xs.value[k] * ys.value[k]);
    return value;
  }
};

// f(i, acc) from the reduction's identity: index i's term of ksync::cuda::parallel_reduce. Never vectorized
// (f reads what it reads), so load_pack, which the kernel names only under `vectorized`, is one term. f
// stores nothing, so the compiler may issue the loads of the four terms a thread folds at once
// (fold_thread_slice) before the first is added.
template <class T, class Index, class F, class Op>
struct index_terms_reader {
  using value_type = T;
  static constexpr int width = 1;
  F f;
  bool vectorized = false;

  __device__ T load(std::size_t i) const {
    T acc = Op::template identity<T>();
    f(static_cast<Index>(i), acc);
    return acc;
  }
  template <class Combine>
  __device__ T load_pack(std::size_t pack_index, Combine /*op*/) const {
    return load(pack_index);
  }
};

}  // namespace ksync::cuda::detail
