# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The hazard catalog's tests (docs/hazards.md), included by tests/CMakeLists.txt when the native half is
# built. Each hazard: the check that must catch it; each corrected twin: clean under the runner, memcheck,
# racecheck and synccheck (and ksync's detector where one applies). Labels: gpu; sanitizer where a
# compute-sanitizer tool runs. The PTX cases (08, 10) are unit tests beside them.
add_executable(ksync_hazards hazards/main.cu hazards/block_cases.cu hazards/warp_cases.cu hazards/grid_cases.cu)
target_link_libraries(ksync_hazards PRIVATE ksync::cuda_native)
ksync_project_warnings(ksync_hazards)

# memcheck and synccheck count errors in "ERROR SUMMARY: N errors"; racecheck in "RACECHECK SUMMARY: N hazards
# displayed (E errors, W warnings)".
set(ksync_sanitizer_finding "ERROR SUMMARY: [1-9]|RACECHECK SUMMARY: [0-9]+ hazards? displayed \\([1-9]")
set(ksync_detector_finding "ksync-detector: [1-9]")
# Case 06 is reported by racecheck as a warning only (intra-warp hazard); the test asks for that warning,
# and ksync's access_tracker catches it as well.
set(ksync_racecheck_warning "RACECHECK SUMMARY: [1-9][0-9]* hazards? displayed \\(0 errors, [1-9]")

# ksync_hazard_test(ID NAME VARIANT CHECK TOOLS EXPECT [CHECKED])
function(ksync_hazard_test id name variant check tools expect)
  set(checked OFF)
  if(ARGN STREQUAL "CHECKED")
    set(checked ON)
  endif()
  set(labels gpu)
  if(NOT tools STREQUAL "none")
    if(NOT KSYNC_COMPUTE_SANITIZER)
      return()  # no compute-sanitizer on this machine: these tests do not exist here
    endif()
    list(APPEND labels sanitizer)
  endif()
  add_test(NAME "hazards.${id}.${name}.${check}"
           COMMAND "${CMAKE_COMMAND}" -DRUNNER=$<TARGET_FILE:ksync_hazards> -DCASE=${id} -DVARIANT=${variant}
                   -DCHECKED=${checked} "-DTOOLS=${tools}" "-DEXPECT=${expect}"
                   -DSANITIZER=${KSYNC_COMPUTE_SANITIZER} -P "${CMAKE_CURRENT_SOURCE_DIR}/hazards/expect.cmake")
  set_tests_properties("hazards.${id}.${name}.${check}" PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77
                                                                    TIMEOUT 600)
endfunction()

# What catches each hazard on an H200 (probed; docs/hazards.md has the full matrix).
ksync_hazard_test(01 partial_barrier hazard racecheck racecheck "${ksync_sanitizer_finding}")
ksync_hazard_test(01 partial_barrier hazard ksync_detector none "${ksync_detector_finding}" CHECKED)
ksync_hazard_test(02 divergent_barrier hazard synccheck synccheck "${ksync_sanitizer_finding}")
ksync_hazard_test(03 barrier_per_branch hazard ksync_detector none "${ksync_detector_finding}" CHECKED)
ksync_hazard_test(04 partial_syncwarp hazard ksync_detector none "${ksync_detector_finding}" CHECKED)
ksync_hazard_test(05 active_mask_as_participants hazard ksync_detector none "${ksync_detector_finding}" CHECKED)
ksync_hazard_test(06 warp_exchange hazard racecheck_warning racecheck "${ksync_racecheck_warning}")
ksync_hazard_test(06 warp_exchange hazard ksync_detector none "${ksync_detector_finding}" CHECKED)
ksync_hazard_test(07 missing_barrier hazard racecheck racecheck "${ksync_sanitizer_finding}")
ksync_hazard_test(09 oversubscribed_grid hazard guard_and_watchdog none
                  "watchdog: [1-9][0-9]* blocks timed out.*co-residency guard refused: hazard 09: blocks = ")
# 10 at run time: readers that saw the flag but not the data (200 launches x 132 pairs).
ksync_hazard_test(10 flag_without_ordering hazard stale_reads none "mismatches: [1-9][0-9]* of 26400")
ksync_hazard_test(11 warp_sync_across_warps hazard racecheck racecheck "${ksync_sanitizer_finding}")

# Every corrected twin: clean everywhere.
foreach(entry 01:partial_barrier:CHECKED 02:divergent_barrier:CHECKED 03:barrier_per_branch:CHECKED
              04:partial_syncwarp:CHECKED 05:active_mask_as_participants:CHECKED 06:warp_exchange:CHECKED
              07:missing_barrier: 09:oversubscribed_grid: 10:flag_without_ordering: 11:warp_sync_across_warps:)
  string(REPLACE ":" ";" fields "${entry}")
  list(GET fields 0 id)
  list(GET fields 1 name)
  list(LENGTH fields field_count)
  ksync_hazard_test(${id} ${name} fixed fixed "none;memcheck;racecheck;synccheck" clean)
  if(field_count EQUAL 3)
    list(GET fields 2 detector)
    if(detector STREQUAL "CHECKED")
      ksync_hazard_test(${id} ${name} fixed fixed_checked none clean CHECKED)
    endif()
  endif()
endforeach()

# 08 (tests/ptx/spin_loops.cu, ptx.spin_loops) and 10: read from the PTX, so they run wherever nvcc does.
add_library(ksync_ptx_publish_flag OBJECT ptx/publish_flag.cu)
ksync_ptx_target(ksync_ptx_publish_flag)
target_compile_features(ksync_ptx_publish_flag PRIVATE cuda_std_20)
if(TARGET Python3::Interpreter)
  add_test(NAME hazards.10.flag_without_ordering.ptx
           COMMAND Python3::Interpreter "${CMAKE_CURRENT_SOURCE_DIR}/ptx/check_publish_flag.py"
                   "$<TARGET_OBJECTS:ksync_ptx_publish_flag>")
  set_tests_properties(hazards.10.flag_without_ordering.ptx PROPERTIES LABELS unit)
endif()
