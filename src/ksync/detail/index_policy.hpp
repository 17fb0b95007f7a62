// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The policy every portable kernel over [begin, end) runs with: a RangePolicy with a 64-bit index, so that
// Views of 2^31 elements and more are reached.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ksync::detail {

template <class ExecutionSpace>
using index_policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;

}  // namespace ksync::detail
