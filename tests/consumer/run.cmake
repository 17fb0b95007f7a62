# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The consumer matrix (tests/CMakeLists.txt): installs a ksync build into a prefix, moves the installed tree
# elsewhere (a relocated install must work), checks that its exported files hold no path of this machine,
# then configures, builds and runs tests/consumer against it once per component set: none (ksync::ksync
# alone), cuda_native, mpi (on 2 ranks) — each where the build has it.
#   KSYNC_BUILD_DIR: the build to install; or, with KIND=static|shared and KSYNC_SOURCE_DIR, a library-only
#   build of that kind made here first, configured with default options and GoogleTest and Google Benchmark
#   hidden from find_package (a library build must not need them). WORK_DIR, CONSUMER_SOURCE_DIR, GENERATOR, CXX_COMPILER,
#   CUDA_COMPILER, CUDA_ARCHITECTURES, Kokkos_DIR, MPIEXEC (empty: no MPI).
cmake_minimum_required(VERSION 3.25)  # script mode: today's policies (quoted strings are not variable names)
set(prefix "${WORK_DIR}/install")
set(moved "${WORK_DIR}/moved/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "consumer test: ${what} failed (exit ${status})")
  endif()
endfunction()

if(CUDA_COMPILER)
  # The architectures ksync was built for, as CMake reads them from the environment: a list such as "80;90"
  # cannot pass through a -D argument of execute_process whole.
  set(ENV{CUDAARCHS} "${CUDA_ARCHITECTURES}")
endif()
set(compilers -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DKokkos_DIR=${Kokkos_DIR})
if(CUDA_COMPILER)
  list(APPEND compilers -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER})
endif()

if(KIND)
  set(shared_libs OFF)
  if(KIND STREQUAL "shared")
    set(shared_libs ON)
  endif()
  set(KSYNC_BUILD_DIR "${WORK_DIR}/ksync-build")
  run_step("configure ksync (${KIND}, library only)" "${CMAKE_COMMAND}" -S "${KSYNC_SOURCE_DIR}" -B "${KSYNC_BUILD_DIR}"
           ${compilers} -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=${shared_libs}
           # A plain configure (tests and benchmarks off by default) needs neither test library:
           -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON)
  run_step("build ksync (${KIND})" "${CMAKE_COMMAND}" --build "${KSYNC_BUILD_DIR}")
endif()

run_step("install" "${CMAKE_COMMAND}" --install "${KSYNC_BUILD_DIR}" --prefix "${prefix}")
file(MAKE_DIRECTORY "${WORK_DIR}/moved")
file(RENAME "${prefix}" "${moved}")  # the tree where it was installed is gone: everything must be relative
file(GLOB config_dirs "${moved}/lib*/cmake/ksync")
file(GLOB exported "${moved}/lib*/cmake/ksync/*Targets*.cmake")
if(NOT exported)
  message(FATAL_ERROR "consumer test: no exported target files under ${moved}")
endif()
foreach(file IN LISTS exported)
  file(STRINGS "${file}" absolute REGEX "\"/[^\"]+\"")  # "/" alone is CMake's own root check
  if(absolute)
    message(FATAL_ERROR "consumer test: ${file} holds a path of the build machine:\n${absolute}")
  endif()
endforeach()
include("${config_dirs}/ksyncSettings.cmake")
if(KIND STREQUAL "shared")
  file(GLOB shared_library "${moved}/lib*/libksync_cuda_native.so")
  if(NOT shared_library)
    message(FATAL_ERROR "consumer test: BUILD_SHARED_LIBS=ON installed no libksync_cuda_native.so")
  endif()
endif()

set(component_sets none)
if(ksync_HAS_CUDA_NATIVE)
  list(APPEND component_sets cuda_native)
endif()
if(ksync_HAS_MPI AND MPIEXEC)
  list(APPEND component_sets mpi)
endif()
foreach(components IN LISTS component_sets)
  set(build "${WORK_DIR}/consumer-${components}")
  set(asked "${components}")
  if(components STREQUAL "none")
    set(asked "")
  endif()
  run_step("configure (components: ${components})" "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${build}"
           ${compilers} -DCMAKE_PREFIX_PATH=${moved} "-DCONSUMER_COMPONENTS=${asked}")
  run_step("build (components: ${components})" "${CMAKE_COMMAND}" --build "${build}")
  file(READ "${build}/targets.txt" seen)
  if(NOT components STREQUAL "mpi" AND seen MATCHES "ksync::mpi")
    message(FATAL_ERROR "consumer test: ksync::mpi was imported without the mpi component (${seen})")
  endif()
  if(components STREQUAL "none" AND NOT ksync_HAS_BRIDGE AND seen MATCHES "ksync::cuda_native")
    message(FATAL_ERROR "consumer test: ksync::cuda_native was imported without being asked for (${seen})")
  endif()
  if(components STREQUAL "mpi")
    set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
    set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
    set(ENV{OMPI_MCA_rmaps_base_oversubscribe} 1)
    set(ENV{OMPI_MCA_btl_vader_single_copy_mechanism} none)
    set(ENV{OMP_NUM_THREADS} 1)
    run_step("run on 2 ranks (components: mpi)" "${MPIEXEC}" -n 2 "${build}/consumer")
  else()
    run_step("run (components: ${components})" "${build}/consumer")
  endif()
endforeach()
message("consumer test: ${KSYNC_BUILD_DIR} (${KIND}): consumed from a moved install with: ${component_sets}")
