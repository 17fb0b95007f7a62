// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The table each half keeps of its strategies or forms (plain C++: the native half includes it too): one
// row per strategy the half implements, a struct deriving from implements<id>. The table checks itself
// against the enum's rows (ksync/strategy_rows.hpp) when it is used: every strategy the rows give to
// `Half` has exactly one row and every row belongs to `Half`, so a strategy cannot be half added — its
// file and its row come together. dispatch() calls a body with the row of a strategy.
#pragma once

#include <ksync/strategy_rows.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>

namespace ksync::detail {

// What a strategy's struct derives from: the enumerator it implements, as its table reads it.
template <auto Id>
struct implements {
  static constexpr decltype(Id) id = Id;
};

template <strategy_half Half, class... Strategies>
constexpr bool table_is_complete() {
  using id_type = std::remove_cv_t<std::tuple_element_t<0, std::tuple<decltype(Strategies::id)...>>>;
  for (const auto& row : strategy_rows(id_type{})) {
    const int rows = ((Strategies::id == row.id ? 1 : 0) + ...);
    if (rows != (must_implement(row, Half) ? 1 : 0)) return false;
  }
  // A row for an enumerator the enum's rows do not know (a value past its table) is refused too.
  return (is_known(Strategies::id) && ...);
}

template <strategy_half Half, class... Strategies>
struct strategy_table {
  static_assert(table_is_complete<Half, Strategies...>(),
                "a strategy table must hold exactly one row for each strategy its half implements (the enum's "
                "rows: ksync/types.hpp, ksync/cg_types.hpp) and none for another: add a strategy's file and its "
                "row together");
  using id_type = std::remove_cv_t<std::tuple_element_t<0, std::tuple<decltype(Strategies::id)...>>>;

  // Calls body.template operator()<Strategy>() for the row of `id`; `where` names the operation.
  template <class Body>
  static void dispatch(const char* where, id_type id, Body&& body) {
    const bool found = ((Strategies::id == id ? (body.template operator()<Strategies>(), true) : false) || ...);
    if (!found)  // not reached: each half's argument checks admit only what has a row
      throw std::logic_error(std::string(where) + ": no row for " + std::string(to_string(id)));
  }
};

}  // namespace ksync::detail
