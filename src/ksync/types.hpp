// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Types both halves share (plain C++: no Kokkos, no CUDA), so that ksync:: and ksync::cuda:: operations
// with the same name take the same arguments.
#pragma once

#include <cstdint>
#include <string_view>

namespace ksync {

// How a reduction combines values.
enum class reduce_op { sum, min, max };

[[nodiscard]] constexpr std::string_view to_string(reduce_op op) noexcept {
  switch (op) {
    case reduce_op::sum:
      return "sum";
    case reduce_op::min:
      return "min";
    case reduce_op::max:
      return "max";
  }
  return "unknown";
}

// What segment_predicates reports for one segment: how many elements satisfy the predicate (nonzero), and
// whether all / any of them do. An empty segment cannot occur (segments cover [0, n) without gaps).
struct predicate_summary {
  std::int32_t count = 0;
  std::int32_t all = 0;
  std::int32_t any = 0;
  friend constexpr bool operator==(const predicate_summary&, const predicate_summary&) = default;
};

}  // namespace ksync
