// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the benchmarks keep between rows (bench/kept.hpp): the kept matrix is made again when any input it
// was made from changes, each changed once here, and not otherwise.
#include "../../bench/kept.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace {

using ksync::bench::csr_source;
using ksync::bench::kept_by_key;
using ksync::bench::source_of;

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

TEST(KeptBetweenRows, TheMatrixIsMadeAgainWhenAnyInputItWasMadeFromChanges) {
  kept_by_key<csr_source, int> kept;
  int made = 0;
  const auto make = [&] { return ++made; };
  const auto folder = std::filesystem::temp_directory_path();
  const std::string unique = std::to_string(std::random_device{}());  // runs in parallel stay apart
  const auto file = folder / ("ksync_kept_test_" + unique + ".mtx");
  write(file, "first");

  EXPECT_EQ(kept.get(source_of(2, 64, ""), make), 1);
  EXPECT_EQ(kept.get(source_of(2, 64, ""), make), 1) << "the same matrix, kept";
  EXPECT_EQ(kept.get(source_of(3, 64, ""), make), 2) << "the dimensions changed";
  EXPECT_EQ(kept.get(source_of(3, 32, ""), make), 3) << "m changed";
  EXPECT_EQ(kept.get(source_of(3, 32, file.string()), make), 4) << "a file instead";
  EXPECT_EQ(kept.get(source_of(3, 32, file.string()), make), 4) << "the same file, kept";
  write(file, "second, longer");
  EXPECT_EQ(kept.get(source_of(3, 32, file.string()), make), 5) << "the file's size changed";
  write(file, "third, longer!");  // the same size ...
  std::filesystem::last_write_time(file, std::filesystem::last_write_time(file) + std::chrono::seconds(5));
  EXPECT_EQ(kept.get(source_of(3, 32, file.string()), make), 6) << "the file was written again";
  const auto other = folder / ("ksync_kept_test_other_" + unique + ".mtx");
  std::filesystem::copy_file(file, other, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::last_write_time(other, std::filesystem::last_write_time(file));
  EXPECT_EQ(kept.get(source_of(3, 32, other.string()), make), 7) << "another path, same size and time";
  std::filesystem::remove(file);
  std::filesystem::remove(other);
}

}  // namespace
