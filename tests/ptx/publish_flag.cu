// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Hazard 10's kernels (tests/hazards/publish_flag.cuh) compiled to PTX for check_publish_flag.py.
#include "../hazards/publish_flag.cuh"
