// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Built with `--default-stream per-thread` (bench/CMakeLists.txt): here a launch without a stream argument
// goes to the calling thread's own default stream, which does not wait for other streams.
#include "default_stream_case.cuh"

namespace ksync::bench {

float per_thread_two_streams_with_a_default_launch_between(std::uint64_t nanoseconds) {
  return two_streams_with_a_default_launch_between(nanoseconds);
}

}  // namespace ksync::bench
