// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// atomic_combine(target, value, op): *target = op(*target, value) as one atomic step, for the operators of
// the shared core (ksync/ops.hpp) and ksync's value types. The hardware has add for all four types and
// min/max for integers; float and double min/max loop on a compare-and-swap of the bits.
#pragma once

#include <ksync/ops.hpp>

#include <cstdint>
#include <type_traits>

namespace ksync::cuda::detail {

template <class T, class Op>
__device__ void atomic_combine_by_cas(T* target, T value, Op op) {
  using Bits = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
  auto* address = reinterpret_cast<Bits*>(target);
  Bits observed = *static_cast<volatile Bits*>(address);
  while (true) {
    T current;
    __builtin_memcpy(&current, &observed, sizeof(T));
    const T next = op(current, value);
    Bits desired;
    __builtin_memcpy(&desired, &next, sizeof(T));
    if (desired == observed) return;  // already combined: nothing to write
    const Bits assumed = observed;
    observed = atomicCAS(address, assumed, desired);
    if (observed == assumed) return;
  }
}

template <class T>
__device__ void atomic_combine(T* target, T value, plus) {
  if constexpr (std::is_same_v<T, std::int64_t>) {
    // Two's-complement addition is the same on the unsigned bits.
    atomicAdd(reinterpret_cast<unsigned long long*>(target), static_cast<unsigned long long>(value));
  } else {
    atomicAdd(target, value);
  }
}

template <class T, reduce_op Id>
__device__ void atomic_combine(T* target, T value, extremum<Id> op) {
  if constexpr (std::is_same_v<T, std::int32_t>) {
    if constexpr (Id == reduce_op::max) {
      atomicMax(target, value);
    } else {
      atomicMin(target, value);
    }
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    auto* bits = reinterpret_cast<long long*>(target);
    if constexpr (Id == reduce_op::max) {
      atomicMax(bits, static_cast<long long>(value));
    } else {
      atomicMin(bits, static_cast<long long>(value));
    }
  } else {
    atomic_combine_by_cas(target, value, op);
  }
}

}  // namespace ksync::cuda::detail
