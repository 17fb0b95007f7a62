# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs EXECUTABLE's GPU tests (FILTER) under compute-sanitizer TOOL; passes only with 0 findings. SHARDS and
# SHARD (GoogleTest's own sharding) split the tests over several runs that CTest can run side by side.
# Exits 77 (CTest: skipped) when no GPU is visible.
execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE no_gpu OUTPUT_QUIET ERROR_QUIET)
if(no_gpu)
  message("no CUDA GPU visible: compute-sanitizer ${TOOL} skipped")
  cmake_language(EXIT 77)
endif()
# The tools slow kernels by orders of magnitude: the tests leave out sizes above this (support/reference.hpp).
set(ENV{KSYNC_TEST_MAX_SIZE} 70000)
set(leak_check "")
if(LEAK_CHECK)  # memcheck only: report device memory still allocated when the program ends
  set(leak_check --leak-check ${LEAK_CHECK})
endif()
set(ENV{GTEST_TOTAL_SHARDS} ${SHARDS})
set(ENV{GTEST_SHARD_INDEX} ${SHARD})
execute_process(
  COMMAND "${SANITIZER}" --tool ${TOOL} ${leak_check} --error-exitcode 1 --print-limit 20 "${EXECUTABLE}"
          --gtest_filter=${FILTER}
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "compute-sanitizer --tool ${TOOL} reported findings (exit ${status}; shard ${SHARD} of ${SHARDS})")
endif()
