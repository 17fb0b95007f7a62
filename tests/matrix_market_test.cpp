// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ksync::read_matrix_market: the fields and symmetries it takes, the CSR it builds, the line a malformed
// file is refused at, and a read matrix solved by ksync::cg.
#include "support/errors.hpp"
#include "support/kokkos.hpp"
#include "support/sparse.hpp"

#include <ksync/cg.hpp>
#include <ksync/csr_matrix.hpp>
#include <ksync/matrix_market.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

template <class T = double, class Index = std::int32_t, class Offset = Index>
ksync::host_csr_matrix<T, Index, Offset> read(const std::string& text) {
  std::istringstream in(text);
  return ksync::read_matrix_market<T, Index, Offset>(in, "m.mtx");
}

std::string refusal(const std::string& text) {
  return ksync::test::invalid_argument_message([&] { (void)read(text); });
}

TEST(MatrixMarket, GeneralRealInRowAndColumnOrder) {
  const auto a = read(
      "%%MatrixMarket matrix coordinate real general\n"
      "% a comment\n"
      "\n"
      "3 4 5\n"
      "3 1 -2.5\n"
      "1 4 1e2\n"
      "1 2 3\n"
      "2 2 4\n"
      "  3 4 5  \n");
  EXPECT_EQ(a.rows, 3);
  EXPECT_EQ(a.cols, 4);
  EXPECT_EQ(a.row_offsets, (std::vector<std::int32_t>{0, 2, 3, 5}));
  EXPECT_EQ(a.columns, (std::vector<std::int32_t>{1, 3, 1, 0, 3}));
  EXPECT_EQ(a.values, (std::vector<double>{3, 100, 4, -2.5, 5}));
  EXPECT_NO_THROW(a.check());
}

TEST(MatrixMarket, SymmetricPatternAndIntegerFields) {
  const auto s = read<float, std::int64_t, std::int64_t>(
      "%%MatrixMarket matrix coordinate integer symmetric\n"
      "3 3 4\n"
      "1 1 2\n"
      "2 1 -1\n"
      "3 2 -1\n"
      "3 3 2\n");
  EXPECT_EQ(s.row_offsets, (std::vector<std::int64_t>{0, 2, 4, 6}));
  EXPECT_EQ(s.columns, (std::vector<std::int64_t>{0, 1, 0, 2, 1, 2}));
  EXPECT_EQ(s.values, (std::vector<float>{2, -1, -1, -1, -1, 2}));
  // Kokkos Kernels' size_t offsets (std::uint64_t).
  const auto wide = read<double, std::int32_t, std::uint64_t>(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "2 2 2\n"
      "1 1 2\n"
      "2 1 -1\n");
  EXPECT_EQ(wide.row_offsets, (std::vector<std::uint64_t>{0, 2, 3}));
  const auto p = read(
      "%%MatrixMarket MATRIX Coordinate Pattern General\n"
      "2 2 2\n"
      "2 1\n"
      "1 2\n");
  EXPECT_EQ(p.columns, (std::vector<std::int32_t>{1, 0}));
  EXPECT_EQ(p.values, (std::vector<double>{1, 1}));
}

TEST(MatrixMarket, MalformedFilesNameTheLine) {
  EXPECT_EQ(refusal(""),
            "ksync::read_matrix_market: m.mtx:1: the input is empty; a Matrix Market file starts with "
            "%%MatrixMarket");
  EXPECT_EQ(refusal("%MatrixMarket matrix coordinate real general\n1 1 0\n"),
            "ksync::read_matrix_market: m.mtx:1: the first line must start with %%MatrixMarket, not "
            "\"%MatrixMarket\"");
  EXPECT_EQ(refusal("%%MatrixMarket matrix array real general\n"),
            "ksync::read_matrix_market: m.mtx:1: format \"array\": only coordinate (sparse) files are read");
  EXPECT_EQ(refusal("%%MatrixMarket matrix coordinate complex general\n"),
            "ksync::read_matrix_market: m.mtx:1: field \"complex\": real, integer and pattern are read");
  EXPECT_EQ(refusal("%%MatrixMarket matrix coordinate real skew-symmetric\n"),
            "ksync::read_matrix_market: m.mtx:1: symmetry \"skew-symmetric\": general and symmetric are read");
  EXPECT_EQ(refusal("%%MatrixMarket matrix coordinate real general\n% c\n2 2\n"),
            "ksync::read_matrix_market: m.mtx:3: the size line must be three non-negative integers (rows columns "
            "entries), not \"2 2\"");
  EXPECT_EQ(refusal("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 x 1.0\n"),
            "ksync::read_matrix_market: m.mtx:4: an entry must be two integers and a number (row column value), "
            "not \"2 x 1.0\"");
  EXPECT_EQ(refusal("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n3 1 1.0\n"),
            "ksync::read_matrix_market: m.mtx:4: entry (3, 1) lies outside the 2 x 2 matrix (indices start at 1)");
  EXPECT_EQ(refusal("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n"),
            "ksync::read_matrix_market: m.mtx:3: the file ends after 1 of 2 entries");
  EXPECT_EQ(refusal("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0\n2 2 1.0\n"),
            "ksync::read_matrix_market: m.mtx:4: more entries than the 1 the size line declares");
  EXPECT_EQ(refusal("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1.0\n"),
            "ksync::read_matrix_market: m.mtx:3: entry (1, 2) lies above the diagonal of a symmetric file, which "
            "stores the lower triangle");
  EXPECT_EQ(refusal("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n"),
            "ksync::read_matrix_market: m.mtx:2: a symmetric matrix must be square (2 x 3)");
  EXPECT_EQ(ksync::test::invalid_argument_message([] { (void)ksync::read_matrix_market<double>("/no/such.mtx"); }),
            "ksync::read_matrix_market: path = \"/no/such.mtx\" cannot be opened");
}

// A generated matrix written as a symmetric file and read back is the same matrix, and ksync::cg solves it.
TEST(MatrixMarket, AWrittenMatrixReadsBackAndSolves) {
  const auto written = ksync::test::generate<double, std::int32_t>(ksync::test::sparse_family::variable_2d, 6);
  const std::string path = ::testing::TempDir() + "ksync_matrix_market_test.mtx";
  {
    std::ofstream out(path);
    std::int64_t lower = 0;
    for (std::int64_t i = 0; i < written.rows; ++i)
      for (auto k = written.row_offsets[i]; k < written.row_offsets[i + 1]; ++k)
        lower += written.columns[k] <= i ? 1 : 0;
    out.precision(17);
    out << "%%MatrixMarket matrix coordinate real symmetric\n"
        << written.rows << ' ' << written.cols << ' ' << lower << '\n';
    for (std::int64_t i = 0; i < written.rows; ++i)
      for (auto k = written.row_offsets[i]; k < written.row_offsets[i + 1]; ++k)
        if (written.columns[k] <= i) out << i + 1 << ' ' << written.columns[k] + 1 << ' ' << written.values[k] << '\n';
  }
  const auto read_back = ksync::read_matrix_market<double>(path);
  std::remove(path.c_str());
  EXPECT_EQ(read_back.row_offsets, written.row_offsets);
  EXPECT_EQ(read_back.columns, written.columns);
  EXPECT_EQ(read_back.values, written.values);
  const Kokkos::DefaultExecutionSpace exec;
  const ksync::csr_matrix a(exec, read_back);
  const auto b = ksync::test::to_device(std::vector<double>(static_cast<std::size_t>(read_back.rows), 1.0));
  const Kokkos::View<double*> x("x", static_cast<std::size_t>(read_back.rows));
  ksync::cg_options options;
  options.tolerance = 1e-10;
  const auto result = ksync::cg(exec, a, b, x, ksync::cg_form::fused, options);
  EXPECT_TRUE(result.converged);
  EXPECT_LE(ksync::test::sparse_true_residual(
                read_back, std::vector<double>(static_cast<std::size_t>(read_back.rows), 1.0), ksync::test::to_host(x)),
            1e-9);
}

}  // namespace
