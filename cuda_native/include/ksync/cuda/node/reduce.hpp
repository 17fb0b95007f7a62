// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::node::reduce — a reduction across the GPUs of a device_group: each GPU reduces its own part
// of a distributed_buffer with ksync::cuda::reduce, then the partial results are combined, either
//   combine_strategy::peer_gather  ksync's own: the partials are copied to rank 0 (peer to peer, or staged
//                                  through the host where the group says so), reduced there, and the result
//                                  is copied back out to every rank that asked for it; or
//   combine_strategy::nccl         an NCCL all-reduce of the partials (builds with NCCL only; has_nccl()).
// Both leave the same value on every rank that asked for it; the benchmarks compare them
// (bench/cuda_native/node_bench.cu).
//
//   reduce(group, data, op, combine, results)   asynchronous: results[r] (device memory of group.device(r),
//                                               or nullptr where rank r needs no copy) is written on
//                                               group.stream(r); nothing waits;
//   reduce(group, data[, op[, combine]])        blocking: the value as a host scalar, once every stream of
//                                               the group is idle.
#pragma once

#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/node/device_group.hpp>
#include <ksync/cuda/value_types.hpp>
#include <ksync/types.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace ksync::cuda::node {

enum class combine_strategy { peer_gather, nccl };

// Both are ksync::cuda's; one file each in detail/node/reduce/, one table there.
inline constexpr strategy_row<combine_strategy> combine_strategy_rows[] = {
    {.id = combine_strategy::peer_gather, .name = "peer_gather", .half = strategy_half::native},
    {.id = combine_strategy::nccl, .name = "nccl", .half = strategy_half::native},
};
static_assert(ksync::detail::rows_follow_the_enum(combine_strategy_rows),
              "combine_strategy_rows must list the combine_strategy values in order");

constexpr const auto& strategy_rows(combine_strategy /*tag*/) noexcept {
  return combine_strategy_rows;
}

// n elements of T cut into one contiguous part per rank of a group (sizes differ by at most one), each part
// in its device's memory. Owns the memory; move-only.
template <class T>
class distributed_buffer {
  static_assert(is_value_type_v<T>, "ksync::cuda::distributed_buffer holds int32, int64, float or double");

 public:
  distributed_buffer(const device_group& group, std::size_t n);
  distributed_buffer(distributed_buffer&&) noexcept = default;
  distributed_buffer& operator=(distributed_buffer&&) noexcept = default;
  distributed_buffer(const distributed_buffer&) = delete;
  distributed_buffer& operator=(const distributed_buffer&) = delete;
  ~distributed_buffer() = default;

  [[nodiscard]] std::size_t size() const noexcept { return offsets_.back(); }
  [[nodiscard]] int parts() const noexcept { return static_cast<int>(parts_.size()); }
  [[nodiscard]] T* part(int rank) const;
  [[nodiscard]] std::size_t part_size(int rank) const;
  [[nodiscard]] std::size_t part_offset(int rank) const;
  [[nodiscard]] int device(int rank) const;  // the CUDA device holding part `rank`

  // Blocking copies between the host and every part: host.size() must equal size(). scatter_from returns
  // once the values have landed, so work enqueued afterwards on any stream sees them; gather_to reads the
  // parts as they are when it is called, so wait first for the streams that wrote them (group.synchronize()).
  void scatter_from(std::span<const T> host);
  void gather_to(std::span<T> host) const;

 private:
  template <class Host>
  void exchange_with_host(const char* where, std::span<Host> host) const;

  std::vector<int> devices_;
  std::vector<device_buffer<T>> parts_;  // one per rank, on its device
  std::vector<std::size_t> offsets_;     // parts() + 1 entries
};

template <class T>
void reduce(device_group& group, const distributed_buffer<T>& data, reduce_op op, combine_strategy combine,
            std::span<T* const> results);

template <class T>
[[nodiscard]] T reduce(device_group& group, const distributed_buffer<T>& data, reduce_op op = reduce_op::sum,
                       combine_strategy combine = combine_strategy::peer_gather);

}  // namespace ksync::cuda::node
