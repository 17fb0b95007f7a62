// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "reduce_values.cuh"

#include <cstdint>

KSYNC_INSTANTIATE_REDUCE_VALUES(float)
