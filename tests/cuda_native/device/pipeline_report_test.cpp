// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The pipeline timeline as a Chrome trace (plain C++, no GPU): the JSON names every step of every chunk on
// its stream's row, in microseconds.
#include <ksync/cuda/device/pipeline_report.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace {

TEST(PipelineReport, ChromeTraceHasOneSlicePerStepOnItsStreamsRow) {
  ksync::cuda::pipeline_report report;
  report.chunks = 2;
  report.timeline = {
      {.chunk = 0, .stream = 0, .copy_in_begin = 0.0f, .copy_in_end = 0.5f, .kernel_end = 0.75f, .copy_out_end = 1.25f},
      {.chunk = 1, .stream = 1, .copy_in_begin = 0.5f, .copy_in_end = 1.0f, .kernel_end = 1.5f, .copy_out_end = 2.0f}};
  std::ostringstream out;
  ksync::cuda::write_chrome_trace(out, report);
  const std::string json = out.str();
  EXPECT_NE(json.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(json.find("{\"name\": \"copy_in 0\", \"cat\": \"copy_in\", \"ph\": \"X\", \"pid\": 0, \"tid\": 0, "
                      "\"ts\": 0, \"dur\": 500,"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"name\": \"kernel 1\", \"cat\": \"kernel\", \"ph\": \"X\", \"pid\": 0, \"tid\": 1, "
                      "\"ts\": 1000, \"dur\": 500,"),
            std::string::npos)
      << json;
  EXPECT_EQ(json.find("},\n  ]"), std::string::npos) << "a trailing comma makes the JSON invalid";
  const std::string slice_marker = R"("ph": "X")";
  std::size_t slices = 0;
  for (std::size_t at = json.find(slice_marker); at != std::string::npos; at = json.find(slice_marker, at + 1))
    ++slices;
  EXPECT_EQ(slices, 6u);
}

}  // namespace
