// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The value types ksync::cuda's host-callable operations are compiled for.
#pragma once

#include <cstdint>
#include <type_traits>

namespace ksync::cuda {

template <class T>
inline constexpr bool is_value_type_v = std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
                                        std::is_same_v<T, float> || std::is_same_v<T, double>;

}  // namespace ksync::cuda
