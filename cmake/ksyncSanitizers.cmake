# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# KSYNC_ENABLE_SANITIZERS: AddressSanitizer + UndefinedBehaviorSanitizer for host code, in a build folder of
# its own (the `asan` preset). CUDA device code is not instrumented; nvcc passes the flags to the host
# compiler for the host half of .cu files (one -Xcompiler per flag: nvcc splits its values at commas).
if(KSYNC_ENABLE_SANITIZERS)
  set(_ksync_san -fsanitize=address -fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${_ksync_san}>")
  foreach(flag IN LISTS _ksync_san)
    add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${flag}>")
  endforeach()
  add_link_options(-fsanitize=address -fsanitize=undefined)
  unset(_ksync_san)
endif()
