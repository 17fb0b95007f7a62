// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The table both halves keep of their strategies (reductions, CG forms; plain C++: the native half includes
// it too): one row, a struct with `static constexpr id`, per strategy the half implements. is_complete()
// holds when every strategy the enum's rows give to `Half` has exactly one row and every row belongs to
// `Half`; each half static_asserts it, so a strategy cannot be half added. dispatch() calls a body with the
// row of a strategy.
#pragma once

#include <ksync/types.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>

namespace ksync::detail {

// A table of the strategies (or forms) one half implements: one row, a struct with `static constexpr id`,
// per enumerator. The enum's own rows (found by argument-dependent lookup: strategy_rows(id) and
// must_implement(row, half), beside the enum) say which enumerators the half must list.
template <strategy_half Half, class... Strategies>
struct strategy_table {
  using id_type = std::remove_cv_t<std::tuple_element_t<0, std::tuple<decltype(Strategies::id)...>>>;

  static constexpr bool is_complete() {
    for (const auto& row : strategy_rows(id_type{})) {
      const int rows = ((Strategies::id == row.id ? 1 : 0) + ...);
      if (rows != (must_implement(row, Half) ? 1 : 0)) return false;
    }
    // A row for an enumerator the enum's rows do not know (a value past its table) is refused too.
    return ((static_cast<std::size_t>(Strategies::id) < std::size(strategy_rows(id_type{}))) && ...);
  }

  // Calls body.template operator()<Strategy>() for the row of `id`; `where` names the operation.
  template <class Body>
  static void dispatch(const char* where, id_type id, Body&& body) {
    const bool found = ((Strategies::id == id ? (body.template operator()<Strategies>(), true) : false) || ...);
    if (!found)  // not reached: each half's argument checks admit only what has a row
      throw std::logic_error(std::string(where) + ": no row for " + std::string(to_string(id)));
  }
};

}  // namespace ksync::detail
