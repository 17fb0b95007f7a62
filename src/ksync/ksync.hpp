// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The portable half of ksync in one include.
#pragma once

#include <ksync/backend.hpp>
#include <ksync/cg.hpp>
#include <ksync/cg_types.hpp>
#include <ksync/compat.hpp>
#include <ksync/config.hpp>
#include <ksync/jacobi.hpp>
#include <ksync/occupancy.hpp>
#include <ksync/parallel_for.hpp>
#include <ksync/parallel_reduce.hpp>
#include <ksync/pipeline.hpp>
#include <ksync/predicates.hpp>
#include <ksync/reduce.hpp>
#include <ksync/reverse.hpp>
#include <ksync/segment_reduce.hpp>
#include <ksync/spmv.hpp>
#include <ksync/stencil.hpp>
#include <ksync/transform.hpp>
#include <ksync/types.hpp>
