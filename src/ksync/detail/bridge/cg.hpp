// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The bridge of ksync::cg's native forms to ksync::cuda::cg (ksync/cuda/device/cg.hpp): the built-in Poisson
// operator, and a ksync::csr_matrix handed over as a ksync::cuda::csr_matrix over the same arrays (checked
// when the portable one was made), in the shape of every bridge file (native_bridge.hpp).
#pragma once

#include <ksync/cg_types.hpp>
#include <ksync/csr_matrix.hpp>
#include <ksync/detail/native_bridge.hpp>

#include <cstdint>
#include <type_traits>

namespace ksync::detail {

// The native matrix a portable ksync::csr_matrix is handed over as: the same Index, 64-bit offsets for
// Kokkos Kernels' unsigned size_t ones (the same bits for every offset a matrix can hold), and no twin for
// 64-bit columns with 32-bit offsets, which ksync::cuda does not compile.
template <class Index, class Offset>
inline constexpr bool csr_has_native_twin =
    !(std::is_same_v<Index, std::uint64_t> ||
      (std::is_same_v<Index, std::int64_t> && std::is_same_v<Offset, std::int32_t>));
template <class Offset>
using native_csr_offset = std::conditional_t<std::is_same_v<Offset, std::int32_t>, std::int32_t, std::int64_t>;

}  // namespace ksync::detail
#if KSYNC_NATIVE_BRIDGE
#include <ksync/cuda/device/cg.hpp>

#include <cstdint>

namespace ksync::detail {

template <class T>
struct twin_of<"ksync::cg", Kokkos::Cuda, T> : twin_for_floating_point<T> {};

template <class BView, class XView>
cg_result twin(operation<"ksync::cg"> /*tag*/, const Kokkos::Cuda& exec, std::int64_t m, const BView& b, const XView& x,
               cg_form form, const cg_options& options) {
  return ksync::cuda::cg(exec.cuda_stream(), m, b.data(), x.data(), form, options);
}

template <class T, class Index, class MemorySpace, class Offset, class BView, class XView>
  requires csr_has_native_twin<Index, Offset>
cg_result twin(operation<"ksync::cg"> /*tag*/, const Kokkos::Cuda& exec,
               const ksync::csr_matrix<T, Index, MemorySpace, Offset>& a, const BView& b, const XView& x, cg_form form,
               const cg_options& options) {
  using offset = native_csr_offset<Offset>;
  const auto native_matrix = ksync::cuda::csr_matrix<T, Index, offset>::already_checked(
      a.rows(), a.cols(), a.nnz(), reinterpret_cast<const offset*>(a.row_offsets().data()), a.columns().data(),
      a.values().data());
  return ksync::cuda::cg(exec.cuda_stream(), native_matrix, b.data(), x.data(), form, options);
}

}  // namespace ksync::detail
#endif
