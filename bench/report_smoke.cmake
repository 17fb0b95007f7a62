# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# CTest report.smoke: what `tools/ksync bench --smoke` does after building — the fingerprint, both suites at
# tiny sizes (their JSON from the bench-smoke tests when present; the native suite skips without a GPU),
# then tools/report-md — and checks report.md's sections. Variables: PYTHON, TOOLS, OUT (the folder),
# PORTABLE, NATIVE (the binaries; NATIVE empty when not built).
file(MAKE_DIRECTORY "${OUT}/traces")
execute_process(COMMAND "${PYTHON}" "${TOOLS}/fingerprint" "${OUT}/fingerprint.json" start "preset=ctest smoke"
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "tools/fingerprint start failed (${status})")
endif()
foreach(suite portable native)
  string(TOUPPER "${suite}" variable)
  if(NOT ${variable} OR EXISTS "${OUT}/${suite}.json")
    continue()
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "KSYNC_TRACE_DIR=${OUT}/traces" "${${variable}}" --ksync_smoke
                          --benchmark_min_time=0.01s "--benchmark_out=${OUT}/${suite}.json" --benchmark_out_format=json
                  RESULT_VARIABLE status OUTPUT_QUIET)
  if(status EQUAL 77)
    file(REMOVE "${OUT}/${suite}.json")
  elseif(NOT status EQUAL 0)
    message(FATAL_ERROR "${suite} benchmarks failed (${status})")
  endif()
endforeach()
execute_process(COMMAND "${PYTHON}" "${TOOLS}/fingerprint" "${OUT}/fingerprint.json" end)
execute_process(COMMAND "${PYTHON}" "${TOOLS}/report-md" "${OUT}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "tools/report-md failed (${status})")
endif()
file(READ "${OUT}/report.md" report)
foreach(expected "## Fingerprint" "## Device-wide reduction: float sum" "## Transform y = 2x" "## Every row")
  string(FIND "${report}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "report.md lacks '${expected}'")
  endif()
endforeach()
