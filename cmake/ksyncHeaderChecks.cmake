# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ksync_add_header_checks(): one generated translation unit per public header, each including only that
# header, all compiled into an object library that is part of the default build. A header that forgets an
# include fails the build. .hpp files of the portable half compile like Kokkos users' code; .hpp files of
# the native half compile as plain C++ (they promise to need no CUDA compiler); .cuh files compile as CUDA.
function(ksync_add_header_checks)
  set(out_dir "${PROJECT_BINARY_DIR}/header_checks")
  set(portable_check_sources)  # function scope sees the caller's variables: start from empty lists
  file(GLOB_RECURSE portable_headers RELATIVE "${PROJECT_SOURCE_DIR}/src" CONFIGURE_DEPENDS
       "${PROJECT_SOURCE_DIR}/src/ksync/*.hpp")
  set(mpi_headers ${portable_headers})
  list(FILTER portable_headers EXCLUDE REGEX "mpi")  # these need MPI: checked below when it was found
  list(FILTER mpi_headers INCLUDE REGEX "mpi")
  foreach(header IN LISTS portable_headers)
    string(MAKE_C_IDENTIFIER "${header}" name)
    file(CONFIGURE OUTPUT "${out_dir}/portable_${name}.cpp" CONTENT "#include <${header}>\n")
    list(APPEND portable_check_sources "${out_dir}/portable_${name}.cpp")
  endforeach()
  ksync_kokkos_sources(${portable_check_sources})
  add_library(ksync_header_checks OBJECT ${portable_check_sources})
  target_link_libraries(ksync_header_checks PRIVATE ksync::ksync)
  ksync_project_warnings(ksync_header_checks)

  if(KSYNC_HAS_MPI)
    set(mpi_check_sources)
    foreach(header IN LISTS mpi_headers)
      string(MAKE_C_IDENTIFIER "${header}" name)
      file(CONFIGURE OUTPUT "${out_dir}/mpi_${name}.cpp" CONTENT "#include <${header}>\n")
      list(APPEND mpi_check_sources "${out_dir}/mpi_${name}.cpp")
    endforeach()
    ksync_kokkos_sources(${mpi_check_sources})
    add_library(ksync_mpi_header_checks OBJECT ${mpi_check_sources})
    target_link_libraries(ksync_mpi_header_checks PRIVATE ksync::mpi)
    ksync_project_warnings(ksync_mpi_header_checks)
  endif()

  if(KSYNC_HAS_CUDA_NATIVE)
    set(native_root "${PROJECT_SOURCE_DIR}/cuda_native/include")
    file(GLOB_RECURSE native_headers RELATIVE "${native_root}" CONFIGURE_DEPENDS
         "${native_root}/ksync/*.hpp" "${native_root}/ksync/*.cuh")
    if(NOT KSYNC_HAS_MPI)
      list(FILTER native_headers EXCLUDE REGEX "mpi")
    endif()
    set(native_check_sources)
    foreach(header IN LISTS native_headers)
      string(MAKE_C_IDENTIFIER "${header}" name)
      if(header MATCHES "\\.cuh$")
        set(source "${out_dir}/native_${name}.cu")
      else()
        set(source "${out_dir}/native_${name}.cpp")
      endif()
      file(CONFIGURE OUTPUT "${source}" CONTENT "#include <${header}>\n")
      list(APPEND native_check_sources "${source}")
    endforeach()
    add_library(ksync_native_header_checks OBJECT ${native_check_sources})
    target_link_libraries(ksync_native_header_checks PRIVATE ksync::cuda_native)
    if(KSYNC_HAS_MPI)
      target_link_libraries(ksync_native_header_checks PRIVATE ksync::cuda_mpi)
    endif()
    ksync_project_warnings(ksync_native_header_checks)
  endif()
endfunction()
