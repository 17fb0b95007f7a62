// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What every native reduction shares on the host: argument checks and the blocking result's path.
#include <ksync/cuda/detail/one_of.hpp>
#include <ksync/cuda/detail/reduce/strategies.cuh>
#include <ksync/cuda/detail/workspace.hpp>
#include <ksync/cuda/device/cluster_support.hpp>
#include <ksync/cuda/device/reduce.hpp>
#include <ksync/cuda/error.hpp>

#include <cstddef>

namespace ksync::cuda::detail {

void check_reduce_arguments(const char* where, const void* x, const void* y, std::size_t n, reduce_strategy strategy,
                            const reduce_tuning& tuning) {
  check_argument(x != nullptr || n == 0, where, "data is null but n = ", n);
  check_argument(y != nullptr || n == 0, where, "y is null but n = ", n);
  check_argument(is_known(strategy), where, "strategy = ", static_cast<int>(strategy), " is not a reduce_strategy");
  check_argument(runs_in(strategy, strategy_half::native), where, "strategy = ", to_string(strategy),
                 " is a portable (Kokkos) strategy; ksync::cuda implements ",
                 names_of_half<reduce_strategy>{strategy_half::native});
  check_one_of(where, "tuning.block_size", tuning.block_size, reduce_block_sizes);
  check_argument(tuning.items_per_thread >= 0, where, "tuning.items_per_thread = ", tuning.items_per_thread,
                 " is negative");
  check_argument(tuning.blocks_per_sm >= 0, where, "tuning.blocks_per_sm = ", tuning.blocks_per_sm, " is negative");
  check_one_of(where, "tuning.cluster_size", tuning.cluster_size, cluster_sizes);
}

bool result_is_one_store(reduce_strategy strategy) {
  bool one_store = false;
  native_reduce_strategies::dispatch("ksync::cuda::reduce", native_choice(strategy),
                                     [&]<class Strategy>() { one_store = Strategy::result_is_one_store; });
  return one_store;
}

void* workspace_device_result(cudaStream_t stream) {
  return stream_workspace(stream).device_result;
}

}  // namespace ksync::cuda::detail
