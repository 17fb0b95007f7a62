# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ksync_add_header_checks(): one generated translation unit per public header, each including only that
# header, all compiled into an object library that is part of the default build. A header that forgets an
# include fails the build. .hpp files of the portable half compile like Kokkos users' code; .hpp files of
# the native half compile as plain C++ (they promise to need no CUDA compiler); .cuh files compile as CUDA.
# An object library `target` of one Kokkos translation unit per header in `headers`, linked to `library`.
function(_ksync_portable_header_checks target prefix library)
  set(sources)
  foreach(header IN LISTS ARGN)
    string(MAKE_C_IDENTIFIER "${header}" name)
    file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/header_checks/${prefix}_${name}.cpp" CONTENT "#include <${header}>\n")
    list(APPEND sources "${PROJECT_BINARY_DIR}/header_checks/${prefix}_${name}.cpp")
  endforeach()
  ksync_kokkos_sources(${sources})
  add_library(${target} OBJECT ${sources})
  target_link_libraries(${target} PRIVATE ${library})
  ksync_kokkos_target(${target})
  ksync_project_warnings(${target})
endfunction()

function(ksync_add_header_checks)
  set(out_dir "${PROJECT_BINARY_DIR}/header_checks")
  # The portable half's headers and the core both halves share (plain C++, checked here with Kokkos users'
  # flags; the native checks below include them through the native headers too).
  file(GLOB_RECURSE portable_headers RELATIVE "${PROJECT_SOURCE_DIR}/src" CONFIGURE_DEPENDS
       "${PROJECT_SOURCE_DIR}/src/ksync/*.hpp")
  file(GLOB_RECURSE core_headers RELATIVE "${PROJECT_SOURCE_DIR}/core" CONFIGURE_DEPENDS
       "${PROJECT_SOURCE_DIR}/core/ksync/*.hpp")
  list(APPEND portable_headers ${core_headers})
  set(mpi_headers ${portable_headers})
  list(FILTER portable_headers EXCLUDE REGEX "mpi")  # these need MPI: checked apart, when it was found
  list(FILTER mpi_headers INCLUDE REGEX "mpi")
  _ksync_portable_header_checks(ksync_header_checks portable ksync::ksync ${portable_headers})
  # Every portable header in one translation unit as well: the one clang-tidy reads for them
  # (tools/run-clang-tidy), instead of parsing Kokkos once per header; the per-header units above keep
  # checking that each header compiles alone.
  set(all_portable "")
  foreach(header IN LISTS portable_headers)
    string(APPEND all_portable "#include <${header}>\n")
  endforeach()
  file(CONFIGURE OUTPUT "${out_dir}/all_portable_headers.cpp" CONTENT "${all_portable}")
  target_sources(ksync_header_checks PRIVATE "${out_dir}/all_portable_headers.cpp")
  ksync_kokkos_sources("${out_dir}/all_portable_headers.cpp")
  if(KSYNC_HAS_MPI)
    _ksync_portable_header_checks(ksync_mpi_header_checks mpi ksync::mpi ${mpi_headers})
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
    # Whether a header compiles alone does not depend on the GPU architecture: the .cuh checks compile
    # device code for one (the newest configured); the library's own sources cover every one.
    set(newest_architecture ${CMAKE_CUDA_ARCHITECTURES})
    list(GET newest_architecture -1 newest_architecture)
    set_property(TARGET ksync_native_header_checks PROPERTY CUDA_ARCHITECTURES ${newest_architecture})
  endif()
endfunction()
