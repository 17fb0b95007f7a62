// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::read_matrix_market — a Matrix Market file (the NIST exchange format: a `%%MatrixMarket` banner,
// `%` comments, a size line, then one entry per line) into a ksync::host_csr_matrix (ksync/csr.hpp), plain
// C++ for both halves:
//
//   auto a = ksync::read_matrix_market<double>("bcsstk14.mtx");          // 32-bit indices
//   auto a = ksync::read_matrix_market<float, std::int64_t>(stream, "name");
//
// Taken: the coordinate format; fields real, integer and pattern (every entry 1); symmetries general and
// symmetric (each off-diagonal entry of the stored triangle is mirrored). Refused: array (dense) files,
// complex, skew-symmetric and hermitian ones. Each row's entries come out in increasing column order;
// repeated (row, column) pairs stay as two entries, which add up wherever the matrix is applied. Errors are
// std::invalid_argument naming the source and the line: "ksync::read_matrix_market: a.mtx:7: ...".
#pragma once

#include <ksync/csr.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <istream>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ksync {

namespace detail {

class matrix_market_lines {
 public:
  matrix_market_lines(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

  // The next line that is neither a comment nor blank; false at the end of the input.
  bool next(std::string& line) {
    while (std::getline(in_, line)) {
      ++number_;
      const auto first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos || line[first] == '%') continue;
      return true;
    }
    return false;
  }
  bool next_raw(std::string& line) {
    ++number_;
    return static_cast<bool>(std::getline(in_, line));
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("ksync::read_matrix_market: " + source_ + ":" + std::to_string(number_) + ": " + what);
  }

 private:
  std::istream& in_;
  std::string source_;
  std::int64_t number_ = 0;
};

inline std::string lowercase(std::string text) {
  for (auto& c : text)
    c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return text;
}

}  // namespace detail

template <class T, class Index = std::int32_t, class Offset = Index>
host_csr_matrix<T, Index, Offset> read_matrix_market(std::istream& in, const std::string& source = "<stream>") {
  detail::matrix_market_lines lines(in, source);
  std::string line;
  if (!lines.next_raw(line)) lines.fail("the input is empty; a Matrix Market file starts with %%MatrixMarket");
  std::istringstream banner(line);
  std::string tag, object, format, field, symmetry;
  banner >> tag >> object >> format >> field >> symmetry;
  if (tag != "%%MatrixMarket") lines.fail("the first line must start with %%MatrixMarket, not \"" + tag + "\"");
  object = detail::lowercase(object);
  format = detail::lowercase(format);
  field = detail::lowercase(field);
  symmetry = detail::lowercase(symmetry);
  if (object != "matrix") lines.fail("object \"" + object + "\": only matrix files are read");
  if (format != "coordinate") lines.fail("format \"" + format + "\": only coordinate (sparse) files are read");
  if (field != "real" && field != "integer" && field != "pattern")
    lines.fail("field \"" + field + "\": real, integer and pattern are read");
  if (symmetry != "general" && symmetry != "symmetric")
    lines.fail("symmetry \"" + symmetry + "\": general and symmetric are read");
  const bool pattern = field == "pattern";
  const bool symmetric = symmetry == "symmetric";

  if (!lines.next(line)) lines.fail("the size line (rows columns entries) is missing");
  std::int64_t rows = -1, cols = -1, entries = -1;
  {
    std::istringstream size(line);
    std::string extra;
    if (!(size >> rows >> cols >> entries) || (size >> extra) || rows < 0 || cols < 0 || entries < 0)
      lines.fail("the size line must be three non-negative integers (rows columns entries), not \"" + line + "\"");
  }
  if (symmetric && rows != cols)
    lines.fail("a symmetric matrix must be square (" + std::to_string(rows) + " x " + std::to_string(cols) + ")");
  if (std::cmp_greater(cols, std::numeric_limits<Index>::max()))
    lines.fail(std::to_string(cols) + " columns do not fit the column index type");

  struct triplet {
    std::int64_t row, col;
    T value;
  };
  std::vector<triplet> read;
  // At most 2^24 ahead of the entries read: a size line that promises more than the file holds must end in
  // the message below, not in bad_alloc.
  read.reserve(static_cast<std::size_t>(std::min<std::int64_t>(symmetric ? 2 * entries : entries, 1 << 24)));
  for (std::int64_t e = 0; e < entries; ++e) {
    if (!lines.next(line))
      lines.fail("the file ends after " + std::to_string(e) + " of " + std::to_string(entries) + " entries");
    std::istringstream entry(line);
    std::int64_t i = 0, j = 0;
    double value = 1.0;
    std::string extra;
    if (!(entry >> i >> j) || (!pattern && !(entry >> value)) || (entry >> extra))
      lines.fail(pattern ? "an entry must be two integers (row column), not \"" + line + "\""
                         : "an entry must be two integers and a number (row column value), not \"" + line + "\"");
    if (i < 1 || i > rows || j < 1 || j > cols)
      lines.fail("entry (" + std::to_string(i) + ", " + std::to_string(j) + ") lies outside the " +
                 std::to_string(rows) + " x " + std::to_string(cols) + " matrix (indices start at 1)");
    if (symmetric && j > i)
      lines.fail("entry (" + std::to_string(i) + ", " + std::to_string(j) +
                 ") lies above the diagonal of a symmetric file, which stores the lower triangle");
    read.push_back({i - 1, j - 1, static_cast<T>(value)});
    if (symmetric && i != j) read.push_back({j - 1, i - 1, static_cast<T>(value)});
  }
  if (lines.next(line)) lines.fail("more entries than the " + std::to_string(entries) + " the size line declares");
  if (std::cmp_greater(read.size(), std::numeric_limits<Offset>::max()))
    lines.fail(std::to_string(read.size()) + " entries do not fit the offset type");

  // Counting sort by row, then each row's entries by column (stable: repeats keep the file's order).
  host_csr_matrix<T, Index, Offset> a;
  a.rows = rows;
  a.cols = cols;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(rows) + 1, 0);
  for (const auto& t : read)
    ++counts[static_cast<std::size_t>(t.row) + 1];
  std::partial_sum(counts.begin(), counts.end(), counts.begin());
  std::vector<std::size_t> order(read.size());
  {
    std::vector<std::int64_t> next(counts.begin(), counts.end() - 1);
    for (std::size_t k = 0; k < read.size(); ++k)
      order[static_cast<std::size_t>(next[static_cast<std::size_t>(read[k].row)]++)] = k;
  }
  a.row_offsets.resize(static_cast<std::size_t>(rows) + 1);
  a.columns.resize(read.size());
  a.values.resize(read.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto begin = order.begin() + counts[static_cast<std::size_t>(r)];
    const auto end = order.begin() + counts[static_cast<std::size_t>(r) + 1];
    std::stable_sort(begin, end, [&](std::size_t x, std::size_t y) { return read[x].col < read[y].col; });
  }
  for (std::size_t k = 0; k < order.size(); ++k) {
    a.columns[k] = static_cast<Index>(read[order[k]].col);
    a.values[k] = read[order[k]].value;
  }
  for (std::size_t r = 0; r < counts.size(); ++r)
    a.row_offsets[r] = static_cast<Offset>(counts[r]);
  return a;
}

// The same from a file; std::invalid_argument when it cannot be opened.
template <class T, class Index = std::int32_t, class Offset = Index>
host_csr_matrix<T, Index, Offset> read_matrix_market(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("ksync::read_matrix_market: path = \"" + path + "\" cannot be opened");
  return read_matrix_market<T, Index, Offset>(in, path);
}

}  // namespace ksync
