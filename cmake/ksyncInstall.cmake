# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Install and export: ksync::ksync always, ksync::cuda_native, ksync::mpi and ksync::cuda_mpi when built; a settings file that records which
# parts were built, and a version file (SameMajorVersion).
set(KSYNC_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/ksync")

set(_ksync_targets ksync)
if(KSYNC_HAS_CUDA_NATIVE)
  list(APPEND _ksync_targets cuda_native)
endif()
if(KSYNC_HAS_MPI)
  list(APPEND _ksync_targets ksync_mpi)
  if(KSYNC_HAS_CUDA_NATIVE)
    list(APPEND _ksync_targets cuda_mpi)
  endif()
endif()
install(TARGETS ${_ksync_targets} EXPORT ksyncTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT ksyncTargets NAMESPACE ksync:: DESTINATION ${KSYNC_INSTALL_CMAKEDIR})

install(DIRECTORY "${PROJECT_SOURCE_DIR}/src/ksync" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(FILES "${PROJECT_BINARY_DIR}/include/ksync/config.hpp" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ksync)
if(KSYNC_HAS_CUDA_NATIVE)
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/cuda_native/include/ksync" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "*.cuh")
endif()

string(JOIN " " KSYNC_KOKKOS_BACKENDS ${Kokkos_DEVICES})
configure_file("${PROJECT_SOURCE_DIR}/cmake/ksyncSettings.cmake.in"
               "${PROJECT_BINARY_DIR}/cmake/ksyncSettings.cmake" @ONLY)
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/ksyncConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/cmake/ksyncConfig.cmake"
                              INSTALL_DESTINATION ${KSYNC_INSTALL_CMAKEDIR})
write_basic_package_version_file("${PROJECT_BINARY_DIR}/cmake/ksyncConfigVersion.cmake"
                                 COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/cmake/ksyncConfig.cmake"
              "${PROJECT_BINARY_DIR}/cmake/ksyncConfigVersion.cmake"
              "${PROJECT_BINARY_DIR}/cmake/ksyncSettings.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/ksyncKokkosSources.cmake"
        DESTINATION ${KSYNC_INSTALL_CMAKEDIR})
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/ksync)
