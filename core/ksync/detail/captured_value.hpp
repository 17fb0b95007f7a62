// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// captured_value: a copy of an argument that a kept object (a graph, a captured launch) baked in, so that a
// later call can ask whether it passes the same one. A graph built for operator A must not run for operator
// B, even when both have one type: the graph holds A's fields (pointers, scalars) by value.
//
// "The same" is decided, in this order, by
//   1. the type's own operator== (std::equality_comparable): the user's promise that equal values give the
//      same kernels — Kokkos::View compares its value type, layout type, memory space, data pointer, span and
//      extents (not strides: two rank-2 LayoutStride Views over one span with swapped strides compare
//      equal), so an operator struct whose members are Views and scalars can declare
//      `bool operator==(const op&) const = default;`, comparing strides too where they can differ;
//   2. the bytes of the object, for a trivially copyable type without operator== (equal bytes make equal
//      copies, so the graph's copy could not tell them apart; unequal padding only costs a rebuild);
//   3. nothing, for any other type: such a value is never taken for the same, and whatever captured it is
//      rebuilt on every call. Give the type an operator== to keep it.
#pragma once

#include <concepts>
#include <cstring>
#include <memory>
#include <type_traits>

namespace ksync::detail {

// Whether captured_value can tell two values of V apart (rules 1 and 2 above).
template <class V>
inline constexpr bool comparable_capture = std::equality_comparable<V> || std::is_trivially_copyable_v<V>;

class captured_value {
 public:
  captured_value() = default;

  template <class V>
  static captured_value of(const V& value) {
    captured_value kept;
    kept.type_ = &type_tag<V>;
    kept.copy_ = std::make_shared<const V>(value);
    kept.equal_ = [](const void* kept_copy, const void* other) {
      const auto& a = *static_cast<const V*>(kept_copy);
      const auto& b = *static_cast<const V*>(other);
      if constexpr (std::equality_comparable<V>) {
        return static_cast<bool>(a == b);
      } else if constexpr (std::is_trivially_copyable_v<V>) {
        return std::memcmp(static_cast<const void*>(&a), static_cast<const void*>(&b), sizeof(V)) == 0;
      } else {
        return false;  // rule 3: cannot be compared, so never the same
      }
    };
    return kept;
  }

  // Whether `value` is of the kept type and the same as the kept copy.
  template <class V>
  [[nodiscard]] bool holds(const V& value) const {
    return type_ == &type_tag<V> && equal_(copy_.get(), static_cast<const void*>(&value));
  }

  [[nodiscard]] bool empty() const noexcept { return copy_ == nullptr; }

 private:
  template <class V>
  static constexpr char type_tag = 0;  // one address per type: the type's identity without RTTI

  const void* type_ = nullptr;
  std::shared_ptr<const void> copy_;
  bool (*equal_)(const void*, const void*) = nullptr;
};

}  // namespace ksync::detail
