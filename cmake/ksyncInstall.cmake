# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Install and export, one export file per component, so that a consumer finds only what it asks for
# (ksyncConfig.cmake): ksync::ksync (ksyncTargets.cmake) always; ksync::cuda_native
# (ksync_cuda_nativeTargets.cmake) when built; ksync::mpi and ksync::cuda_mpi (ksync_mpiTargets.cmake) when
# MPI was found. Dependencies are imported targets (Kokkos::kokkos, CUDA::cudart, NCCL::NCCL, MPI::MPI_CXX)
# that ksyncConfig.cmake finds again: the exported files hold no path of this machine, and the installed
# tree can be moved. Beside them: a settings file (what was built), a version file (SameMajorVersion), and
# FindNCCL.cmake when NCCL is used.
set(KSYNC_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/ksync")

# ksync_install_component(<export name> <file> <targets...>)
function(ksync_install_component export_name file)
  install(TARGETS ${ARGN} EXPORT ${export_name}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT ${export_name} NAMESPACE ksync:: FILE ${file} DESTINATION ${KSYNC_INSTALL_CMAKEDIR})
endfunction()

ksync_install_component(ksyncTargets ksyncTargets.cmake ksync)
if(KSYNC_HAS_CUDA_NATIVE)
  ksync_install_component(ksyncCudaNativeTargets ksync_cuda_nativeTargets.cmake cuda_native)
endif()
if(KSYNC_HAS_MPI)
  set(_ksync_mpi_targets ksync_mpi)
  if(KSYNC_HAS_CUDA_NATIVE)
    list(APPEND _ksync_mpi_targets cuda_mpi)
  endif()
  ksync_install_component(ksyncMpiTargets ksync_mpiTargets.cmake ${_ksync_mpi_targets})
endif()

install(DIRECTORY "${PROJECT_SOURCE_DIR}/core/ksync" "${PROJECT_SOURCE_DIR}/src/ksync"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
install(FILES "${PROJECT_BINARY_DIR}/include/ksync/config.hpp" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ksync)
# The native headers go wholesale, detail/ included: the installed templates include private headers from
# it (device/reduce.cuh the strategies of detail/reduce/), and the other operations' forms (detail/<op>/,
# compiled into the library) go with them.
if(KSYNC_HAS_CUDA_NATIVE)
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/cuda_native/include/ksync" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "*.cuh")
endif()

# The bridge: ksync::ksync links ksync::cuda_native when both halves were built for CUDA (src/CMakeLists.txt).
set(KSYNC_HAS_BRIDGE OFF)
if(KSYNC_HAS_CUDA_NATIVE AND Kokkos_ENABLE_CUDA)
  set(KSYNC_HAS_BRIDGE ON)
endif()
set(KSYNC_CUDA_NATIVE_SHARED OFF)
if(KSYNC_HAS_CUDA_NATIVE AND BUILD_SHARED_LIBS)
  set(KSYNC_CUDA_NATIVE_SHARED ON)
endif()
string(JOIN " " KSYNC_KOKKOS_BACKENDS ${Kokkos_DEVICES})
configure_file("${PROJECT_SOURCE_DIR}/cmake/ksyncSettings.cmake.in"
               "${PROJECT_BINARY_DIR}/cmake/ksyncSettings.cmake" @ONLY)
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/ksyncConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/cmake/ksyncConfig.cmake"
                              INSTALL_DESTINATION ${KSYNC_INSTALL_CMAKEDIR})
write_basic_package_version_file("${PROJECT_BINARY_DIR}/cmake/ksyncConfigVersion.cmake"
                                 COMPATIBILITY SameMajorVersion)
set(_ksync_cmake_files "${PROJECT_BINARY_DIR}/cmake/ksyncConfig.cmake"
                       "${PROJECT_BINARY_DIR}/cmake/ksyncConfigVersion.cmake"
                       "${PROJECT_BINARY_DIR}/cmake/ksyncSettings.cmake"
                       "${PROJECT_SOURCE_DIR}/cmake/ksyncKokkosSources.cmake")
if(KSYNC_HAS_NCCL)
  list(APPEND _ksync_cmake_files "${PROJECT_SOURCE_DIR}/cmake/FindNCCL.cmake")
endif()
install(FILES ${_ksync_cmake_files} DESTINATION ${KSYNC_INSTALL_CMAKEDIR})
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/ksync)
