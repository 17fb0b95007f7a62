// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The one shape of ksync's checks of a library call's status (KSYNC_CUDA_CHECK, KSYNC_MPI_CHECK, the NCCL
// check): on any status but `success`, fail(status, "<the call's text>", __FILE__, __LINE__), which throws
// an exception naming the call and where it was made. KSYNC_DETAIL_CHECK_STATUS takes the status and the
// text apart, for a check that may stand in for the call (ksync::cuda's injected failures).
#pragma once

#define KSYNC_DETAIL_CHECK_STATUS(status, text, success, fail)                                 \
  do {                                                                                         \
    const auto ksync_check_status_ = (status);                                                 \
    if (ksync_check_status_ != (success)) fail(ksync_check_status_, text, __FILE__, __LINE__); \
  } while (false)

#define KSYNC_DETAIL_CHECK_CALL(call, success, fail) KSYNC_DETAIL_CHECK_STATUS(call, #call, success, fail)
