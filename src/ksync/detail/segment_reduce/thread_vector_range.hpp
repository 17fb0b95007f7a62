// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// segment_form::thread_vector_range — two levels: a TeamThreadRange over chunks of 32 elements, each chunk
// reduced over the member's ThreadVectorRange, the chunks' values combined by the outer reduction.
#pragma once

#include <ksync/detail/strategy_table.hpp>
#include <ksync/types.hpp>

#include <Kokkos_Core.hpp>

namespace ksync::detail::segment_forms {

struct thread_vector_range : implements<segment_form::thread_vector_range> {
  static constexpr int chunk = 32;

  template <class Reducer, class Member, class Fold, class Value>
  KOKKOS_FUNCTION static void reduce(const Member& team, int len, const Fold& fold, Value& result) {
    const int chunks = (len + chunk - 1) / chunk;
    // Both levels are collectives of their scope: every member enters the outer one and every lane of a
    // member the inner one (participation); the ranges stop at the chunk count and the chunk's length (data).
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, chunks),
        [&](int c, Value& acc) {
          const int first = c * chunk;
          const int count = len - first < chunk ? len - first : chunk;
          Value part;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, count), [&](int j, Value& a) { fold(first + j, a); }, Reducer(part));
          Reducer(acc).join(acc, part);
        },
        Reducer(result));
  }
};

}  // namespace ksync::detail::segment_forms
