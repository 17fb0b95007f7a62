// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The portable half of ksync in one include.
#pragma once

#include <ksync/compat.hpp>
#include <ksync/config.hpp>
#include <ksync/reduce.hpp>
