# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Which GPU architectures ksync's CUDA code is compiled for. Nothing here is a fixed architecture: the
# choice comes from the user, from Kokkos or from the GPUs of the machine.
#
# ksync_choose_cuda_architectures()
#   Sets CMAKE_CUDA_ARCHITECTURES (it must run before enable_language(CUDA), which would otherwise pick the
#   compiler's default) and KSYNC_CUDA_ARCHITECTURES_SOURCE (why), in this order of precedence:
#     1. the user's choice: -DCMAKE_CUDA_ARCHITECTURES=... or the CUDAARCHS environment variable;
#     2. the architecture the found Kokkos was built for, when it has the CUDA backend;
#     3. the GPUs of this machine, as the driver reports them (nvidia-smi's compute_cap);
#     4. none of those (a build machine without a GPU, such as CI): 80 and 90, machine code for both. These
#        are the two ways ksync's device code differs (thread-block clusters exist from sm_90 on), so both
#        paths compile. GPUs from sm_80 on run that code (newer ones JIT-compile the sm_90 PTX); a Turing
#        GPU (sm_75) needs a build of its own (-DCMAKE_CUDA_ARCHITECTURES=75), PTX being compiled only upward.
#
# ksync_kokkos_target(<target>)
#   A target whose sources include Kokkos compiles its CUDA for Kokkos' architecture, whatever the native
#   half was given (so -DCMAKE_CUDA_ARCHITECTURES=80-virtual changes ksync's kernels, not Kokkos' ones).
#
# ksync_ptx_target(<target>)
#   An object library compiled to PTX for reading (nvcc -ptx takes one architecture): the first of
#   CMAKE_CUDA_ARCHITECTURES, as PTX.
#
# ksync_check_cuda_toolkit()
#   After enable_language(CUDA): the toolkit floor and the architectures this nvcc can still compile.

# Kokkos_CUDA_ARCHITECTURES (exported by Kokkos 4.x) or, failing that, the number in Kokkos_ARCH's GPU entry.
function(_ksync_kokkos_cuda_architectures result)
  set(architectures "")
  if(Kokkos_ENABLE_CUDA)
    if(DEFINED Kokkos_CUDA_ARCHITECTURES AND NOT "${Kokkos_CUDA_ARCHITECTURES}" STREQUAL "")
      set(architectures ${Kokkos_CUDA_ARCHITECTURES})
    else()
      foreach(arch IN LISTS Kokkos_ARCH)
        if(arch MATCHES "^(KEPLER|MAXWELL|PASCAL|VOLTA|TURING|AMPERE|ADA|HOPPER|BLACKWELL)([0-9]+)$")
          list(APPEND architectures ${CMAKE_MATCH_2})
        endif()
      endforeach()
    endif()
  endif()
  set(${result} "${architectures}" PARENT_SCOPE)
endfunction()

# Compute capabilities of this machine's GPUs as the driver reports them ("9.0" -> 90), deduplicated.
function(_ksync_machine_cuda_architectures result)
  set(architectures "")
  find_program(KSYNC_NVIDIA_SMI nvidia-smi)
  mark_as_advanced(KSYNC_NVIDIA_SMI)
  if(KSYNC_NVIDIA_SMI)
    execute_process(COMMAND "${KSYNC_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE capabilities RESULT_VARIABLE status ERROR_QUIET TIMEOUT 30)
    if(status EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" capabilities "${capabilities}")
      foreach(capability IN LISTS capabilities)
        string(REPLACE "." "" architecture "${capability}")
        list(APPEND architectures ${architecture})
      endforeach()
      list(REMOVE_DUPLICATES architectures)
    endif()
  endif()
  set(${result} "${architectures}" PARENT_SCOPE)
endfunction()

function(ksync_choose_cuda_architectures)
  # A value this function chose on an earlier run is chosen again (Kokkos or the GPU may have changed).
  if(DEFINED _KSYNC_CUDA_ARCHITECTURES_CHOSEN AND "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "${_KSYNC_CUDA_ARCHITECTURES_CHOSEN}")
    unset(CMAKE_CUDA_ARCHITECTURES)
    unset(CMAKE_CUDA_ARCHITECTURES CACHE)
  endif()
  if(DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(source "set by the user (CMAKE_CUDA_ARCHITECTURES)")
  elseif(DEFINED ENV{CUDAARCHS})
    set(CMAKE_CUDA_ARCHITECTURES "$ENV{CUDAARCHS}")
    set(source "set by the user (CUDAARCHS)")
  else()
    _ksync_kokkos_cuda_architectures(from_kokkos)
    _ksync_machine_cuda_architectures(from_machine)
    if(from_kokkos)
      set(CMAKE_CUDA_ARCHITECTURES ${from_kokkos})
      set(source "the architecture Kokkos ${Kokkos_VERSION} was built for")
    elseif(from_machine)
      set(CMAKE_CUDA_ARCHITECTURES ${from_machine})
      set(source "this machine's GPUs (nvidia-smi)")
    else()
      set(CMAKE_CUDA_ARCHITECTURES 80 90)
      set(source "no GPU and no CUDA Kokkos here: sm_80 and sm_90 code, the two forms ksync's kernels take")
    endif()
    set(_KSYNC_CUDA_ARCHITECTURES_CHOSEN "${CMAKE_CUDA_ARCHITECTURES}" CACHE INTERNAL "")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}" CACHE STRING "CUDA architectures of ksync's kernels")
  set(KSYNC_CUDA_ARCHITECTURES_SOURCE "${source}" PARENT_SCOPE)
endfunction()

function(ksync_kokkos_target target)
  if(Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA")
    _ksync_kokkos_cuda_architectures(architectures)
    if(architectures)
      set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${architectures}")
    endif()
  endif()
endfunction()

function(ksync_ptx_target target)
  list(GET CMAKE_CUDA_ARCHITECTURES 0 first)
  set_target_properties(${target} PROPERTIES CUDA_PTX_COMPILATION ON)
  if(first MATCHES "^([0-9]+)")  # not for CMake's keywords (native, all, all-major): nvcc resolves those
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${CMAKE_MATCH_1}-virtual")
  endif()
endfunction()

function(ksync_check_cuda_toolkit)
  # cudaStreamGetDevice, which the native half uses to find a stream's device, arrived in CUDA 12.8.
  if(CMAKE_CUDA_COMPILER_VERSION VERSION_LESS 12.8)
    message(FATAL_ERROR "ksync's native half needs CUDA 12.8 or newer (it asks streams for their device with "
                        "cudaStreamGetDevice, new in 12.8); ${CMAKE_CUDA_COMPILER} is CUDA "
                        "${CMAKE_CUDA_COMPILER_VERSION}. Point CMAKE_CUDA_COMPILER (or CUDACXX) at a newer nvcc, or "
                        "configure with -DKSYNC_ENABLE_CUDA_NATIVE=OFF to build only the portable half.")
  endif()
  if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 13.0)
    foreach(architecture IN LISTS CMAKE_CUDA_ARCHITECTURES)
      if(architecture MATCHES "^([0-9]+)" AND CMAKE_MATCH_1 LESS 75)
        message(FATAL_ERROR "CUDA ${CMAKE_CUDA_COMPILER_VERSION} cannot compile for sm_${CMAKE_MATCH_1} "
                            "(CMAKE_CUDA_ARCHITECTURES = ${CMAKE_CUDA_ARCHITECTURES}, ${KSYNC_CUDA_ARCHITECTURES_SOURCE}): "
                            "CUDA 13 dropped Volta. Build for such a GPU with CUDA 12.8 or 12.9.")
      endif()
    endforeach()
  endif()
endfunction()
