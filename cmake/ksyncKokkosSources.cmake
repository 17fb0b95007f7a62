# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ksync_kokkos_sources(<source>...)
#   Marks sources that include Kokkos so that they compile the way the found Kokkos needs: when Kokkos was
#   built with CUDA as a CMake language (Kokkos_COMPILE_LANGUAGE is CUDA) they become CUDA sources; with
#   nvcc_wrapper or a CPU-only Kokkos nothing changes. Installed with ksync, so consumers can use it too.
function(ksync_kokkos_sources)
  if(Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA")
    set_source_files_properties(${ARGN} DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" PROPERTIES LANGUAGE CUDA)
  endif()
endfunction()
