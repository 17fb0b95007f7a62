// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Run-time argument checks, shared by both halves (plain C++): a failed check throws std::invalid_argument
// whose message names the function, the argument and its value.
#pragma once

#include <cstdint>
#include <sstream>
#include <stdexcept>

namespace ksync::detail {

// Throws std::invalid_argument("<where>: <what>") when `ok` is false; `what` names the argument and value.
template <class... Parts>
void check_argument(bool ok, const char* where, const Parts&... what) {
  if (ok) return;
  std::ostringstream message;
  message << where << ": ";
  (message << ... << what);
  throw std::invalid_argument(message.str());
}

// The number of segments of `segment_size` that cover n elements, after checking segment_size >= 1 and
// that the output holds exactly that many (`output_extent`) and that one launch can hold them.
inline std::int64_t checked_segment_count(const char* where, std::int64_t n, int segment_size,
                                          std::int64_t output_extent) {
  check_argument(segment_size >= 1, where, "segment_size = ", segment_size, " must be at least 1");
  const std::int64_t segments = (n + segment_size - 1) / segment_size;
  check_argument(output_extent == segments, where, "out.extent(0) = ", output_extent, " but ", n,
                 " elements in segments of ", segment_size, " make ", segments);
  check_argument(segments <= INT32_MAX, where, "n = ", n, " needs ", segments,
                 " segments, more than one launch holds; use a larger segment_size");
  return segments;
}

}  // namespace ksync::detail
