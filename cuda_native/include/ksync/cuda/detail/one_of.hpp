// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The check of an argument against a fixed list of accepted values (reduce_block_sizes, cluster_sizes), so
// that each list is written once and the check, its message and the kernels compiled for it all read it.
// Plain C++.
#pragma once

#include <ksync/detail/arguments.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <ostream>

namespace ksync::cuda::detail {

// Streams as the values separated by ", ". It only refers to the list, so building one for a check that
// passes costs nothing.
template <std::size_t N>
struct comma_separated {
  const std::array<int, N>& values;
  friend std::ostream& operator<<(std::ostream& out, const comma_separated& list) {
    for (std::size_t k = 0; k < N; ++k)
      out << (k == 0 ? "" : ", ") << list.values[k];
    return out;
  }
};

// Throws std::invalid_argument("<where>: <name> = <value> is not one of <accepted, comma-separated>")
// unless `value` is in `accepted`.
template <std::size_t N>
void check_one_of(const char* where, const char* name, int value, const std::array<int, N>& accepted) {
  ksync::detail::check_argument(std::ranges::find(accepted, value) != accepted.end(), where, name, " = ", value,
                                " is not one of ", comma_separated<N>{accepted});
}

}  // namespace ksync::cuda::detail
