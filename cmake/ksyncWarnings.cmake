# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ksync_project_warnings(<target>): the warning set for ksync's own targets. Host code gets
# -Wall -Wextra -Wpedantic; CUDA code passes -Wall -Wextra to the host compiler (-Wpedantic is left out
# there because nvcc's generated host code trips it). With KSYNC_WARNINGS_AS_ERRORS (CI) every warning,
# nvcc's own included, fails the build.
function(ksync_project_warnings target)
  set(host_warnings -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
  set(cuda_warnings -Xcompiler=-Wall,-Wextra)
  if(KSYNC_WARNINGS_AS_ERRORS)
    list(APPEND host_warnings -Werror)
    list(APPEND cuda_warnings -Xcompiler=-Werror --Werror=all-warnings)
  endif()
  get_target_property(type ${target} TYPE)
  set(scope PRIVATE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    return()
  endif()
  target_compile_options(${target} ${scope}
    "$<$<COMPILE_LANGUAGE:CXX>:${host_warnings}>"
    "$<$<COMPILE_LANGUAGE:CUDA>:${cuda_warnings}>")
endfunction()
