// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/device/reduce.hpp>
#include <ksync/cuda/node/nccl.hpp>
#include <ksync/cuda/node/reduce.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

namespace ksync::cuda::node {

template <class T>
distributed_buffer<T>::distributed_buffer(const device_group& group, std::size_t n)
    : offsets_(detail::balanced_offsets(n, static_cast<std::size_t>(group.size()))) {
  try {
    for (int r = 0; r < group.size(); ++r) {
      const detail::device_guard on(group.device(r));
      devices_.push_back(group.device(r));
      T* allocated = nullptr;
      const std::size_t elements = part_size(r);
      if (elements > 0) KSYNC_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&allocated), elements * sizeof(T)));
      parts_.push_back(allocated);
    }
  } catch (...) {
    for (T* allocated : parts_)
      (void)cudaFree(allocated);
    throw;
  }
}

template <class T>
distributed_buffer<T>::~distributed_buffer() {
  for (T* allocated : parts_)
    (void)cudaFree(allocated);  // cudaFree needs no particular current device
}

template <class T>
T* distributed_buffer<T>::part(int rank) const {
  (void)part_size(rank);  // checks the rank
  return parts_[static_cast<std::size_t>(rank)];
}

template <class T>
std::size_t distributed_buffer<T>::part_size(int rank) const {
  detail::check_argument(rank >= 0 && rank < static_cast<int>(offsets_.size()) - 1,
                         "ksync::cuda::node::distributed_buffer", "rank = ", rank, " but the buffer has ",
                         offsets_.size() - 1, " part(s)");
  return offsets_[static_cast<std::size_t>(rank) + 1] - offsets_[static_cast<std::size_t>(rank)];
}

template <class T>
std::size_t distributed_buffer<T>::part_offset(int rank) const {
  (void)part_size(rank);
  return offsets_[static_cast<std::size_t>(rank)];
}

template <class T>
int distributed_buffer<T>::device(int rank) const {
  (void)part_size(rank);
  return devices_[static_cast<std::size_t>(rank)];
}

template <class T>
void distributed_buffer<T>::scatter_from(std::span<const T> host) {
  exchange_with_host("ksync::cuda::node::distributed_buffer::scatter_from", host);
}

template <class T>
void distributed_buffer<T>::gather_to(std::span<T> host) const {
  exchange_with_host("ksync::cuda::node::distributed_buffer::gather_to", host);
}

// Host -> parts for a span of const T (scatter_from), parts -> host otherwise (gather_to); blocking.
template <class T>
template <class Host>
void distributed_buffer<T>::exchange_with_host(const char* where, std::span<Host> host) const {
  detail::check_argument(host.size() == size(), where, "host.size() = ", host.size(), " but the buffer holds ", size());
  for (int r = 0; r < parts(); ++r) {
    const std::size_t bytes = part_size(r) * sizeof(T);
    if (bytes == 0) continue;
    const detail::device_guard on(device(r));
    if constexpr (std::is_const_v<Host>) {
      detail::copy_to_device_and_wait(part(r), host.data() + part_offset(r), bytes);  // landed on return
    } else {
      KSYNC_CUDA_CHECK(cudaMemcpy(host.data() + part_offset(r), part(r), bytes, cudaMemcpyDeviceToHost));
    }
  }
}

namespace {

// Slot `slot` of rank r's scratch: slots 0 .. size() - 1 gather the partials on rank 0, slot size() holds a
// rank's own partial or result.
template <class T>
T* scratch_slot(const device_group& group, int rank, int slot) {
  return static_cast<T*>(group.scratch(rank)) + slot;
}

template <class T>
void combine_by_peer_gather(device_group& group, const distributed_buffer<T>& data, reduce_op op,
                            std::span<T* const> results) {
  const int count = group.size();
  for (int r = 0; r < count; ++r) {
    const detail::device_guard on(group.device(r));
    T* partial = r == 0 ? scratch_slot<T>(group, 0, 0) : scratch_slot<T>(group, r, count);
    ksync::cuda::reduce(group.stream(r), data.part(r), data.part_size(r), op, reduce_strategy::automatic, partial);
  }
  std::vector<copy_request> gather;  // each copy follows its rank's reduction; stream(0) waits for them all
  for (int r = 1; r < count; ++r)
    gather.push_back({.to_rank = 0,
                      .dst = scratch_slot<T>(group, 0, r),
                      .from_rank = r,
                      .src = scratch_slot<T>(group, r, count),
                      .bytes = sizeof(T)});
  group.copy(gather);
  T* result = results[0] != nullptr ? results[0] : scratch_slot<T>(group, 0, count);
  {
    const detail::device_guard on(group.device(0));
    ksync::cuda::reduce(group.stream(0), scratch_slot<T>(group, 0, 0), static_cast<std::size_t>(count), op,
                        reduce_strategy::automatic, result);
  }
  std::vector<copy_request> broadcast;
  for (int r = 1; r < count; ++r)
    if (results[static_cast<std::size_t>(r)] != nullptr)
      broadcast.push_back({.to_rank = r,
                           .dst = results[static_cast<std::size_t>(r)],
                           .from_rank = 0,
                           .src = result,
                           .bytes = sizeof(T)});
  group.copy(broadcast);
}

template <class T>
void combine_by_nccl(device_group& group, const distributed_buffer<T>& data, reduce_op op,
                     std::span<T* const> results) {
  const int count = group.size();
  std::vector<T*> buffers(static_cast<std::size_t>(count));
  for (int r = 0; r < count; ++r) {
    const auto rank = static_cast<std::size_t>(r);
    buffers[rank] = results[rank] != nullptr ? results[rank] : scratch_slot<T>(group, r, count);
    const detail::device_guard on(group.device(r));
    ksync::cuda::reduce(group.stream(r), data.part(r), data.part_size(r), op, reduce_strategy::automatic,
                        buffers[rank]);
  }
  detail::nccl_all_reduce_in_place(group, std::span<T* const>(buffers), op);
}

}  // namespace

template <class T>
void reduce(device_group& group, const distributed_buffer<T>& data, reduce_op op, combine_strategy combine,
            std::span<T* const> results) {
  const char* where = "ksync::cuda::node::reduce (device_group)";
  detail::check_argument(data.parts() == group.size(), where, "data has ", data.parts(), " part(s) but the group has ",
                         group.size(), " rank(s)");
  detail::check_argument(results.size() == static_cast<std::size_t>(group.size()), where,
                         "results.size() = ", results.size(), " but the group has ", group.size(), " rank(s)");
  for (int r = 0; r < group.size(); ++r) {
    detail::check_argument(data.device(r) == group.device(r), where, "data's part ", r, " is on device ",
                           data.device(r), " but the group's rank ", r, " is device ", group.device(r));
    const T* target = results[static_cast<std::size_t>(r)];
    if (target == nullptr) continue;
    cudaPointerAttributes attributes{};
    KSYNC_CUDA_CHECK(cudaPointerGetAttributes(&attributes, target));
    detail::check_argument(attributes.type == cudaMemoryTypeDevice && attributes.device == group.device(r), where,
                           "results[", r, "] = ", static_cast<const void*>(target),
                           " is not device memory of the group's rank ", r, " (device ", group.device(r), ")");
  }
  detail::check_argument(combine != combine_strategy::nccl || has_nccl(), where,
                         "combine = nccl but this build of ksync has no NCCL");
  if (combine == combine_strategy::nccl) {
    combine_by_nccl(group, data, op, results);
  } else {
    combine_by_peer_gather(group, data, op, results);
  }
}

template <class T>
T reduce(device_group& group, const distributed_buffer<T>& data, reduce_op op, combine_strategy combine) {
  std::vector<T*> results(static_cast<std::size_t>(group.size()), nullptr);
  results[0] = scratch_slot<T>(group, 0, group.size());
  reduce(group, data, op, combine, std::span<T* const>(results));
  T value{};
  {
    const detail::device_guard on(group.device(0));
    KSYNC_CUDA_CHECK(cudaMemcpyAsync(&value, results[0], sizeof(T), cudaMemcpyDeviceToHost, group.stream(0)));
  }
  group.synchronize();
  return value;
}

// NOLINTBEGIN(bugprone-macro-parentheses): T names a type in template arguments, where parentheses cannot go
#define KSYNC_NODE_REDUCE(T)                                                                        \
  template class distributed_buffer<T>;                                                             \
  template void reduce<T>(device_group&, const distributed_buffer<T>&, reduce_op, combine_strategy, \
                          std::span<T* const>);                                                     \
  template T reduce<T>(device_group&, const distributed_buffer<T>&, reduce_op, combine_strategy);
KSYNC_NODE_REDUCE(std::int32_t)
KSYNC_NODE_REDUCE(std::int64_t)
KSYNC_NODE_REDUCE(float)
KSYNC_NODE_REDUCE(double)
#undef KSYNC_NODE_REDUCE
// NOLINTEND(bugprone-macro-parentheses)

}  // namespace ksync::cuda::node
