// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The table both halves keep of their reduction strategies (plain C++: the native half includes it too): one
// row, a struct with `static constexpr reduce_strategy id`, per strategy the half implements. is_complete()
// holds when every strategy types.hpp gives to `Half` has exactly one row and every row's strategy belongs
// to `Half`; each half static_asserts it, so a strategy cannot be half added. dispatch() calls a body with
// the row of a strategy.
#pragma once

#include <ksync/types.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace ksync::detail {

template <strategy_half Half, class... Strategies>
struct strategy_table {
  static constexpr bool is_complete() {
    for (const auto& row : reduce_strategy_rows) {
      const int rows = ((Strategies::id == row.id ? 1 : 0) + ...);
      if (rows != (row.half == Half ? 1 : 0)) return false;
    }
    // A row for an enumerator types.hpp has no row for (a value past its table) is refused too.
    return ((static_cast<std::size_t>(Strategies::id) < std::size(reduce_strategy_rows)) && ...);
  }

  // Calls body.template operator()<Strategy>() for the row of `strategy`; `where` names the operation.
  template <class Body>
  static void dispatch(const char* where, reduce_strategy strategy, Body&& body) {
    const bool found = ((Strategies::id == strategy ? (body.template operator()<Strategies>(), true) : false) || ...);
    if (!found)  // not reached: each half's argument checks admit only strategies with a row
      throw std::logic_error(std::string(where) + ": no row for strategy " + std::string(to_string(strategy)));
  }
};

}  // namespace ksync::detail
