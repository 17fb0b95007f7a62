// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What ksync::cuda::pipeline (device/pipeline.cuh) reports, and its timeline as a Chrome trace: plain C++,
// usable without a CUDA compiler. write_chrome_trace() writes the JSON that Perfetto (ui.perfetto.dev) and
// chrome://tracing open: one row per stream, one slice per step (host-to-device copy, kernel,
// device-to-host copy) of every chunk — the stand-in for an Nsight Systems timeline.
#pragma once

#include <cstddef>
#include <ostream>
#include <vector>

namespace ksync::cuda {

// One chunk's steps, in milliseconds from the call's origin event.
struct chunk_timeline {
  std::size_t chunk = 0;
  int stream = 0;
  float copy_in_begin = 0;
  float copy_in_end = 0;  // = kernel begin on its stream
  float kernel_end = 0;   // = copy out begin
  float copy_out_end = 0;
};

struct pipeline_report {
  bool pinned_input = false;
  bool pinned_output = false;
  std::size_t chunks = 0;
  float milliseconds = 0;                // the run's origin event to the last stream's end
  std::vector<chunk_timeline> timeline;  // record_timeline only
};

// Writes `report.timeline` as Chrome trace events ("X" slices, microseconds), process `process_name`.
inline void write_chrome_trace(std::ostream& out, const pipeline_report& report,
                               const char* process_name = "ksync::cuda::pipeline") {
  const auto slice = [&](const char* step, const chunk_timeline& chunk, float begin, float end, bool last) {
    out << R"(    {"name": ")" << step << ' ' << chunk.chunk << R"(", "cat": ")" << step
        << R"(", "ph": "X", "pid": 0, "tid": )" << chunk.stream << R"(, "ts": )" << begin * 1000.0f << R"(, "dur": )"
        << (end - begin) * 1000.0f << R"(, "args": {"chunk": )" << chunk.chunk << "}}" << (last ? "\n" : ",\n");
  };
  out << "{\n" << R"(  "displayTimeUnit": "ms",)" << "\n" << R"(  "traceEvents": [)" << "\n";
  out << R"(    {"name": "process_name", "ph": "M", "pid": 0, "args": {"name": ")" << process_name << R"("}})"
      << (report.timeline.empty() ? "\n" : ",\n");
  for (std::size_t k = 0; k < report.timeline.size(); ++k) {
    const auto& chunk = report.timeline[k];
    slice("copy_in", chunk, chunk.copy_in_begin, chunk.copy_in_end, false);
    slice("kernel", chunk, chunk.copy_in_end, chunk.kernel_end, false);
    slice("copy_out", chunk, chunk.kernel_end, chunk.copy_out_end, k + 1 == report.timeline.size());
  }
  out << "  ]\n}\n";
}

}  // namespace ksync::cuda
