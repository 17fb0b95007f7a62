// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the benchmarks keep from one row to the next: a value that is slow to make (an assembled matrix) and
// the same for every row of one size, kept with everything it was made from and made again when any of that
// differs. Plain C++ (no Kokkos, no Google Benchmark), so that tests/bench/kept_test.cpp checks the keys.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

namespace ksync::bench {

// One value, and the key it was made from.
template <class Key, class Value>
class kept_by_key {
 public:
  // The kept value where `key` equals the one it was made from; else make() (the old value is released
  // first: the largest matrices take a gigabyte each).
  template <class Make>
  const Value& get(const Key& key, Make&& make) {
    if (!value_ || !(key_ == key)) {
      value_.reset();
      value_ = std::make_unique<Value>(std::forward<Make>(make)());
      key_ = key;
    }
    return *value_;
  }

 private:
  Key key_{};
  std::unique_ptr<Value> value_;
};

// What a cg_csr row's matrix is made from: a generated Poisson matrix's dimensions and size, or a Matrix
// Market file's path, size and time of last change (a file rewritten between rows is read again).
struct csr_source {
  int dims = 0;
  std::int64_t m = 0;
  std::string file;
  std::uintmax_t file_size = 0;
  std::filesystem::file_time_type file_changed;  // a time_point: zero by default
  friend bool operator==(const csr_source&, const csr_source&) = default;
};

inline csr_source source_of(int dims, std::int64_t m, const std::string& file) {
  csr_source source;
  source.dims = dims;
  source.m = m;
  if (!file.empty()) {
    source.file = file;
    source.file_size = std::filesystem::file_size(file);
    source.file_changed = std::filesystem::last_write_time(file);
  }
  return source;
}

}  // namespace ksync::bench
