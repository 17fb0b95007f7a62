#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# tools/ksync-kokkos without a GPU or a network: what it plans for a given compute capability and source,
# and that it refuses, by name, what it cannot build. Builds nothing.
#   check_ksync_kokkos.sh TOOLS_DIR WORK_DIR
set -uo pipefail
tools=$1
work=$2
rm -rf "$work" && mkdir -p "$work/kokkos-src"
# A stand-in source tree: only the version lines of Kokkos' CMakeLists.txt are read by `plan`.
printf 'set(Kokkos_VERSION_MAJOR 4)\nset(Kokkos_VERSION_MINOR 7)\nset(Kokkos_VERSION_PATCH 2)\n' \
  >"$work/kokkos-src/CMakeLists.txt"
export KSYNC_CACHE_DIR=$work/cache
failures=0
expect() {  # expect DESCRIPTION EXIT_STATUS PATTERN -- COMMAND...
  local what=$1 status=$2 pattern=$3
  shift 4
  local output actual
  output=$("$@" 2>&1)
  actual=$?
  if [ "$actual" -ne "$status" ] || ! grep -qE "$pattern" <<<"$output"; then
    printf 'FAILED: %s: exit %d (wanted %d), output:\n%s\n' "$what" "$actual" "$status" "$output"
    failures=$((failures + 1))
  else
    printf 'ok: %s\n' "$what"
  fi
}
expect "Hopper from KSYNC_CUDA_ARCH" 0 "GPU architecture: 90 \(Kokkos_ARCH_HOPPER90\)" -- \
  env KSYNC_CUDA_ARCH=90 KSYNC_KOKKOS_SOURCE="$work/kokkos-src" "$tools/ksync-kokkos" plan
expect "one cached build per source, CUDA version and architecture" 0 \
  "prefix: $work/cache/kokkos/dir-[0-9a-f]{12}-cuda[0-9.]+-sm90-r[0-9]+ \(not built yet\)" -- \
  env KSYNC_CUDA_ARCH=90 KSYNC_KOKKOS_SOURCE="$work/kokkos-src" "$tools/ksync-kokkos" plan
expect "Ampere from KSYNC_CUDA_ARCH, the pinned release" 0 "Kokkos 4\.7\.02, pinned release" -- \
  env KSYNC_CUDA_ARCH=80 KSYNC_KOKKOS_SOURCE= "$tools/ksync-kokkos" plan
expect "Blackwell has a Kokkos name" 0 "Kokkos_ARCH_BLACKWELL120" -- \
  env KSYNC_CUDA_ARCH=120 "$tools/ksync-kokkos" plan
expect "an unknown compute capability is refused by name" 1 "compute capability 61 has no Kokkos architecture" -- \
  env KSYNC_CUDA_ARCH=61 "$tools/ksync-kokkos" plan
expect "a malformed KSYNC_CUDA_ARCH is refused by name" 1 "KSYNC_CUDA_ARCH = 'sm_90' is not a number" -- \
  env KSYNC_CUDA_ARCH=sm_90 "$tools/ksync-kokkos" plan
expect "a missing KSYNC_KOKKOS_SOURCE is refused by name" 1 "KSYNC_KOKKOS_SOURCE = '$work/nowhere' is neither" -- \
  env KSYNC_CUDA_ARCH=90 KSYNC_KOKKOS_SOURCE="$work/nowhere" "$tools/ksync-kokkos" plan
# nvcc 13 cannot compile for Volta: said before anything is built (only where the nvcc found is 13 or newer).
if "${CUDACXX:-nvcc}" --version 2>/dev/null | grep -q 'release 1[3-9]\.'; then
  expect "Volta with CUDA 13 is refused by name" 1 "CUDA 13 dropped Volta" -- \
    env KSYNC_CUDA_ARCH=70 "$tools/ksync-kokkos" plan
fi
[ "$failures" -eq 0 ] && echo "check_ksync_kokkos: all passed" || { echo "check_ksync_kokkos: $failures failed"; exit 1; }
