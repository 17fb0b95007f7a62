# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# GoogleTest and Google Benchmark, needed only for ksync's own tests and benchmarks.
#
# ksync_find_or_fetch(<target> <package> <floor> <name> <url> <sha256> <source variable> [<option>...])
#   Nothing when <target> exists already. Else the sources named by the cache variable <source variable>
#   (default: the environment variable of the same name) when it is set: a source directory or a release
#   tarball on this machine, for machines without internet or for a version of one's choice. Else
#   find_package(<package> <floor>): an installed copy at or above the floor is used as it is. Else the pinned
#   release <url>, downloaded and checked against <sha256>. Sources are built inside ksync's build tree
#   (FetchContent) with each <option> of theirs set OFF, and never installed with ksync. Says which of the
#   three it used.
include(FetchContent)

function(ksync_find_or_fetch target package floor name url sha256 source_variable)
  if(TARGET ${target})
    return()
  endif()
  set(${source_variable} "$ENV{${source_variable}}" CACHE STRING
      "${package} sources to build instead of an installed ${package}: a directory or a tarball (empty: an installed ${package} >= ${floor}, else download ${url})")
  set(source "${${source_variable}}")
  if(source STREQUAL "")
    find_package(${package} ${floor} CONFIG QUIET)
    if(${package}_FOUND)
      message(STATUS "ksync: ${package} ${${package}_VERSION} found (${${package}_DIR})")
      set_property(GLOBAL APPEND PROPERTY KSYNC_TEST_DEPENDENCIES "${package} ${${package}_VERSION}, installed (${${package}_DIR})")
      return()
    endif()
  endif()
  if(source STREQUAL "")
    message(STATUS "ksync: no ${package} >= ${floor} installed; downloading ${url} (checked against SHA-256 ${sha256})")
    FetchContent_Declare(${name} URL "${url}" URL_HASH SHA256=${sha256})
    set(origin "the pinned release ${url}")
  elseif(IS_DIRECTORY "${source}")
    message(STATUS "ksync: building ${package} from the sources in ${source} (${source_variable})")
    FetchContent_Declare(${name} SOURCE_DIR "${source}")
    set(origin "built from ${source}")
  elseif(EXISTS "${source}")
    file(SHA256 "${source}" local_sha256)
    set(note "a local tarball, not the pinned release")
    if(local_sha256 STREQUAL sha256)
      set(note "the pinned release")
    endif()
    message(STATUS "ksync: building ${package} from ${source} (${source_variable}; SHA-256 ${local_sha256}: ${note})")
    FetchContent_Declare(${name} URL "${source}")
    set(origin "built from ${source} (${note})")
  else()
    message(FATAL_ERROR "${source_variable} = '${source}' is neither a directory nor a file; point it at ${package} "
                        "sources (a directory or a release tarball), or unset it to download ${url}")
  endif()
  foreach(option IN LISTS ARGN)  # the fetched project's own tests, install rules and the like
    set(${option} OFF CACHE BOOL "" FORCE)
  endforeach()
  FetchContent_MakeAvailable(${name})
  set_property(GLOBAL APPEND PROPERTY KSYNC_TEST_DEPENDENCIES "${package}: ${origin}")
endfunction()

# Pinned releases (hashes of the release archives as published).
set(KSYNC_GOOGLETEST_URL "https://github.com/google/googletest/archive/refs/tags/v1.17.0.tar.gz")
set(KSYNC_GOOGLETEST_SHA256 "65fab701d9829d38cb77c14acdc431d2108bfdbf8979e40eb8ae567edf10b27c")
set(KSYNC_BENCHMARK_URL "https://github.com/google/benchmark/archive/v1.9.4.tar.gz")
set(KSYNC_BENCHMARK_SHA256 "b334658edd35efcf06a99d9be21e4e93e092bd5f95074c1673d5c8705d95c104")

# GoogleTest >= 1.11 (GTEST_SKIP and the CMake package ksync relies on).
macro(ksync_require_googletest)
  ksync_find_or_fetch(GTest::gtest GTest 1.11 googletest "${KSYNC_GOOGLETEST_URL}" "${KSYNC_GOOGLETEST_SHA256}"
                      KSYNC_GOOGLETEST_SOURCE INSTALL_GTEST BUILD_GMOCK)
endmacro()

# Google Benchmark >= 1.8: the benchmarks name rows with std::string and the scripts pass
# --benchmark_min_time with a unit ("0.02s"), both new in 1.8 (Debian 12's 1.7.1 takes neither, so there the
# pinned release is built).
macro(ksync_require_benchmark)
  ksync_find_or_fetch(benchmark::benchmark benchmark 1.8 benchmark "${KSYNC_BENCHMARK_URL}"
                      "${KSYNC_BENCHMARK_SHA256}" KSYNC_BENCHMARK_SOURCE BENCHMARK_ENABLE_TESTING
                      BENCHMARK_ENABLE_GTEST_TESTS BENCHMARK_ENABLE_INSTALL BENCHMARK_INSTALL_DOCS
                      BENCHMARK_ENABLE_WERROR BENCHMARK_ENABLE_LIBPFM)
endmacro()
