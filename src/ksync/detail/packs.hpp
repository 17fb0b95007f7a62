// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// 16-byte packs for the portable `tuned` kernels on GPU backends, in plain C++ (no CUDA code): an aligned
// struct of 16 / sizeof(T) elements, read and written in one access. On Kokkos::Cuda a kernel that moves one
// 4-byte element per thread per step keeps too few bytes in flight to fill a GPU's memory pipeline; one
// 16-byte access per step lets nvcc emit ld.global.v4 / st.global.v4 and reaches the copy bandwidth (the
// measurements, and Kokkos' parallel_for in every form beside them: docs/reductions.md). Used only when
// every View involved is contiguous and its data is 16-byte aligned (packable()); otherwise the kernels read
// element by element.
#pragma once

#include <ksync/compat.hpp>

#include <cstdint>
#include <type_traits>

namespace ksync::detail {

template <class T>
inline constexpr bool has_packs_v = std::is_arithmetic_v<T> && sizeof(T) <= 16 && 16 % sizeof(T) == 0;

// The elements of T in one 16-byte access.
template <class T>
struct alignas(16) pack16 {
  static_assert(has_packs_v<T>, "ksync: pack16 holds arithmetic types whose size divides 16");
  static constexpr int width = static_cast<int>(16 / sizeof(T));
  T value[width];
};

// Whether pack p of `view` may be read as *(pack16*)(view.data() + p * width): contiguous, 16-byte aligned.
template <class View>
bool packable(const View& view) {
  using T = typename View::non_const_value_type;
  if constexpr (has_packs_v<T>) {
    return view.span_is_contiguous() && reinterpret_cast<std::uintptr_t>(view.data()) % 16 == 0;
  } else {
    return false;
  }
}

// Pack p of a packable array (elements p * width ... p * width + width - 1).
template <class T>
KOKKOS_FUNCTION pack16<std::remove_const_t<T>> load_pack(T* data, std::int64_t p) {
  return reinterpret_cast<const pack16<std::remove_const_t<T>>*>(data)[p];
}

template <class T>
KOKKOS_FUNCTION void store_pack(T* data, std::int64_t p, const pack16<T>& pack) {
  reinterpret_cast<pack16<T>*>(data)[p] = pack;
}

}  // namespace ksync::detail
