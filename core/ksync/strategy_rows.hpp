// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// How ksync names its choices of implementation (plain C++, shared by both halves): every enum of
// strategies or forms (reduce_strategy, transform_strategy, jacobi_form, segment_form, implementation in
// types.hpp; cg_form in cg_types.hpp) has one table of rows, in the enum's order, found by
// argument-dependent lookup as strategy_rows(id). Everything said of an enumerator — its name, which half
// implements it, which half's table must list it (ksync/detail/strategy_table.hpp) — is read from its row,
// by the functions below, written once for every such enum.
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ksync {

// Which half implements a strategy or form: portable (Kokkos code, any backend), native (ksync::cuda's
// kernels, reachable from ksync:: on Kokkos::Cuda through the bridge), both (each half has its own), or
// either (not an implementation: each half's own choice, as `automatic` is).
enum class strategy_half { either, portable, native, both };

// A row without columns of its own: what most enums' rows are.
struct no_columns {};

// One enumerator's row. Columns holds what the enum says of its members besides name and half (cg_form's:
// whether an iteration is one fused pass, whether the solve is one launch), so that tests, benchmarks and
// checks ask the row instead of listing members by hand.
template <class Id, class Columns = no_columns>
struct strategy_row {
  Id id;
  std::string_view name;
  strategy_half half;
  [[no_unique_address]] Columns columns{};
};

namespace detail {

template <class Id, class Columns, std::size_t N>
constexpr bool rows_follow_the_enum(const strategy_row<Id, Columns> (&rows)[N]) {
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(rows[i].id) != i) return false;
  return true;
}

template <class Id, class Columns, std::size_t N>
constexpr std::array<Id, N> ids_of(const strategy_row<Id, Columns> (&rows)[N]) {
  std::array<Id, N> ids{};
  for (std::size_t i = 0; i < N; ++i)
    ids[i] = rows[i].id;
  return ids;
}

// The name of `value` in `names`, a table in the enum's order; "unknown" for a value past it. For enums
// that name things but choose no implementation (reduce_op, issue_order, ...).
template <class Name, std::size_t N, class Enum>
constexpr Name name_in(const Name (&names)[N], Enum value) noexcept {
  const auto index = static_cast<std::size_t>(value);
  return index < N ? names[index] : Name("unknown");
}

// Whether `value` has a name in `names` (false for an integer cast to the enum past the table).
template <class Name, std::size_t N, class Enum>
constexpr bool named_in(const Name (& /*names*/)[N], Enum value) noexcept {
  return static_cast<std::size_t>(value) < N;
}

// A name table's names for a message, "none, jacobi", written only when streamed.
template <std::size_t N>
struct listed_names {
  const std::string_view (&names)[N];
  template <class Stream>
  friend Stream& operator<<(Stream& out, const listed_names& listed) {
    for (std::size_t i = 0; i < N; ++i)
      out << (i == 0 ? "" : ", ") << listed.names[i];
    return out;
  }
};
template <std::size_t N>
constexpr listed_names<N> listed(const std::string_view (&names)[N]) noexcept {
  return {names};
}

// The enumerator whose name is `name` in `names`, a table in the enum's order (as name_in reads it); throws
// std::invalid_argument("<where>: name = "<name>" is not a <noun> (<names>)").
template <class Enum, std::size_t N>
Enum value_named(const std::string_view (&names)[N], std::string_view name, const char* where, const char* noun) {
  std::string known;
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<Enum>(i);
    known += (known.empty() ? "" : ", ") + std::string(names[i]);
  }
  throw std::invalid_argument(std::string(where) + ": name = \"" + std::string(name) + "\" is not a " + noun + " (" +
                              known + ")");
}

// Whether `id` has a row (not for an integer cast to the enum past its rows). An index comparison, not a
// pointer one: it must stay a constant expression under -fsanitize=undefined too.
template <class Id, class Columns, std::size_t N>
constexpr bool in_rows(const strategy_row<Id, Columns> (& /*rows*/)[N], Id id) {
  return static_cast<std::size_t>(id) < N;
}

// The id named `name`; throws std::invalid_argument("<where>: name = "<name>" is not a <noun> (<names>)").
template <class Id, class Columns, std::size_t N>
Id id_named(const strategy_row<Id, Columns> (&rows)[N], std::string_view name, const char* where, const char* noun) {
  std::string known;
  for (const auto& row : rows) {
    if (row.name == name) return row.id;
    known += (known.empty() ? "" : ", ") + std::string(row.name);
  }
  throw std::invalid_argument(std::string(where) + ": name = \"" + std::string(name) + "\" is not a " + noun + " (" +
                              known + ")");
}

}  // namespace detail

// An enum with a table of rows: strategy_rows(Id{}) names it (declared beside the enum).
template <class Id>
concept has_strategy_rows = std::is_enum_v<Id> && requires(Id id) { strategy_rows(id); };

// The name of `id` as its row spells it; "unknown" for a value past the rows.
template <has_strategy_rows Id>
[[nodiscard]] constexpr std::string_view to_string(Id id) noexcept {
  const auto& rows = strategy_rows(id);
  return detail::in_rows(rows, id) ? rows[static_cast<std::size_t>(id)].name : std::string_view("unknown");
}

// Which half implements `id` (strategy_half::either for a value past the rows).
template <has_strategy_rows Id>
[[nodiscard]] constexpr strategy_half half_of(Id id) noexcept {
  const auto& rows = strategy_rows(id);
  return detail::in_rows(rows, id) ? rows[static_cast<std::size_t>(id)].half : strategy_half::either;
}

// Whether `id` runs ksync::cuda's hand-written kernels (as opposed to Kokkos code).
template <has_strategy_rows Id>
[[nodiscard]] constexpr bool is_native(Id id) noexcept {
  return half_of(id) == strategy_half::native;
}

// Whether `id` names a row (false for an integer cast to the enum past its rows).
template <has_strategy_rows Id>
[[nodiscard]] constexpr bool is_known(Id id) noexcept {
  return detail::in_rows(strategy_rows(id), id);
}

// The columns of `id`'s row (an enum whose rows have some). `id` must name a row: a constant expression
// past the rows does not compile, and at run time ask is_known first.
template <has_strategy_rows Id>
[[nodiscard]] constexpr const auto& columns_of(Id id) noexcept {
  return strategy_rows(id)[static_cast<std::size_t>(id)].columns;
}

// Whether `id`'s work runs as one launch whose grid stays resident (persistent forms): the one_launch column
// of enums whose rows have one (cg_form, jacobi_form). False for a value past the rows.
template <has_strategy_rows Id>
  requires requires(Id id) { columns_of(id).one_launch; }
[[nodiscard]] constexpr bool runs_in_one_launch(Id id) noexcept {
  return is_known(id) && columns_of(id).one_launch;
}

// Whether `id`'s work is captured once into a graph kept between calls (the graph forms): the graph column
// of enums whose rows have one (cg_form, jacobi_form). False for a value past the rows.
template <has_strategy_rows Id>
  requires requires(Id id) { columns_of(id).graph; }
[[nodiscard]] constexpr bool replays_a_graph(Id id) noexcept {
  return is_known(id) && columns_of(id).graph;
}

// Whether `half`'s entry points take `id`: the half's own rows, those both halves implement, and the
// choices that are no implementation (`automatic`). False for a value past the rows.
template <has_strategy_rows Id>
[[nodiscard]] constexpr bool runs_in(Id id, strategy_half half) noexcept {
  const strategy_half implemented_by = half_of(id);
  return is_known(id) &&
         (implemented_by == half || implemented_by == strategy_half::both || implemented_by == strategy_half::either);
}

// Every id `half`'s entry points take, in the enum's order: what tests and benchmarks loop over.
template <has_strategy_rows Id>
[[nodiscard]] std::vector<Id> ids_of_half(strategy_half half) {
  std::vector<Id> ids;
  for (const auto& row : strategy_rows(Id{}))
    if (runs_in(row.id, half)) ids.push_back(row.id);
  return ids;
}

// Every implementation `half` has, in the enum's order: ids_of_half without the choices that are none
// (`automatic`). What a benchmark times one by one.
template <has_strategy_rows Id>
[[nodiscard]] std::vector<Id> implementations_of_half(strategy_half half) {
  std::vector<Id> ids;
  for (const Id id : ids_of_half<Id>(half))
    if (half_of(id) != strategy_half::either) ids.push_back(id);
  return ids;
}

// Their names, for messages, written only when streamed (a check's message is built only when it fails):
// `out << names_of_half<reduce_strategy>{strategy_half::native}` writes "automatic, two_pass, ...".
template <has_strategy_rows Id>
struct names_of_half {
  strategy_half half;
  template <class Stream>
  friend Stream& operator<<(Stream& out, const names_of_half& names) {
    bool first = true;
    for (const Id id : ids_of_half<Id>(names.half)) {
      out << (first ? "" : ", ") << to_string(id);
      first = false;
    }
    return out;
  }
};

// The names of the rows `keep` selects, for messages, written only when streamed:
// `out << names_where<cg_form>{runs_pipelined}` writes "fused, kokkos_graph, ...".
template <has_strategy_rows Id>
struct names_where {
  bool (*keep)(Id);
  template <class Stream>
  friend Stream& operator<<(Stream& out, const names_where& names) {
    bool first = true;
    for (const auto& row : strategy_rows(Id{})) {
      if (!names.keep(row.id)) continue;
      out << (first ? "" : ", ") << row.name;
      first = false;
    }
    return out;
  }
};

// Which rows a half's table of implementations must list: its own and those both halves implement.
template <class Id, class Columns>
constexpr bool must_implement(const strategy_row<Id, Columns>& row, strategy_half half) noexcept {
  return row.half == half || row.half == strategy_half::both;
}

}  // namespace ksync
