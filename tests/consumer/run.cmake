# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs the ksync build in KSYNC_BUILD_DIR into a fresh prefix, then configures, builds and runs the
# consumer project against that prefix alone (plus the Kokkos ksync was built with).
set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${prefix}" "${build}")

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "consumer test: ${what} failed (exit ${status})")
  endif()
endfunction()

run_step("install" "${CMAKE_COMMAND}" --install "${KSYNC_BUILD_DIR}" --prefix "${prefix}")
set(configure_args -S "${CONSUMER_SOURCE_DIR}" -B "${build}" -G "${GENERATOR}"
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix} -DKokkos_DIR=${Kokkos_DIR})
if(CUDA_COMPILER)
  list(APPEND configure_args -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER})
  # The architectures ksync was built for, as CMake reads them from the environment: a list such as "80;90"
  # cannot pass through a -D argument of execute_process whole.
  set(ENV{CUDAARCHS} "${CUDA_ARCHITECTURES}")
endif()
run_step("configure" "${CMAKE_COMMAND}" ${configure_args})
run_step("build" "${CMAKE_COMMAND}" --build "${build}")
run_step("run" "${build}/consumer")
