// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The reduction operators, written once for both halves (plain C++, callable from CUDA and Kokkos kernels):
// how each reduce_op combines two values, its identity, and the one dispatch from a run-time reduce_op to
// its operator. The identity is what a participant without a valid element contributes, so that it can
// still reach every barrier: the data bound is kept by the value, the participation bound by the call.
#pragma once

#include <ksync/detail/host_device.hpp>
#include <ksync/types.hpp>

#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace ksync {

namespace detail {
// min starts from +infinity and max from -infinity for floating types (true identities, as Kokkos'
// reduction_identity has them), from the largest / lowest value otherwise. Namespace-scope constexpr
// scalars: device code may read them, where calling numeric_limits' host functions would not compile
// without relaxed constexpr.
template <class T>
inline constexpr T min_identity =
    std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
template <class T>
inline constexpr T max_identity =
    std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
}  // namespace detail

struct plus {
  static constexpr reduce_op id = reduce_op::sum;
  template <class T>
  KSYNC_HOST_DEVICE static constexpr T identity() {
    return T{};
  }
  template <class T>
  KSYNC_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return a + b;
  }
};

// min and max: keep one of two values by comparison. A NaN operand is skipped (b < a and a < b are false
// for it), on every backend alike.
template <reduce_op Id>
struct extremum {
  static_assert(Id == reduce_op::min || Id == reduce_op::max, "ksync::extremum is min or max");
  static constexpr reduce_op id = Id;
  static constexpr bool keeps_larger = Id == reduce_op::max;
  template <class T>
  KSYNC_HOST_DEVICE static constexpr T identity() {
    return keeps_larger ? detail::max_identity<T> : detail::min_identity<T>;
  }
  template <class T>
  KSYNC_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return (keeps_larger ? a < b : b < a) ? b : a;
  }
};
using minimum = extremum<reduce_op::min>;
using maximum = extremum<reduce_op::max>;

// The operator a reduce_op names, at compile time.
template <reduce_op Op>
using operator_of =
    std::conditional_t<Op == reduce_op::sum, plus, std::conditional_t<Op == reduce_op::min, minimum, maximum>>;

// Calls body(the operator `op` names): the one place a run-time reduce_op becomes a compile-time operator.
// Throws std::invalid_argument naming `op` when it is none of the enumerators.
template <class Body>
decltype(auto) with_operator(reduce_op op, Body&& body) {
  switch (op) {
    case reduce_op::sum:
      return std::forward<Body>(body)(plus{});
    case reduce_op::min:
      return std::forward<Body>(body)(minimum{});
    case reduce_op::max:
      return std::forward<Body>(body)(maximum{});
  }
  throw std::invalid_argument("ksync: op = " + std::to_string(static_cast<int>(op)) + " is not a reduce_op");
}

// What `op` stands for in another library's enumeration (MPI_Op, ncclRedOp_t): the one mapping of
// reduce_op to a foreign value, given the three.
template <class Foreign>
constexpr Foreign foreign_op(reduce_op op, Foreign sum, Foreign min, Foreign max) {
  return op == reduce_op::min ? min : op == reduce_op::max ? max : sum;
}

}  // namespace ksync
