// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/detail/node/reduce/strategies.hpp>
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
  for (int r = 0; r < group.size(); ++r) {  // device_buffer frees what was taken when a later part fails
    const device_guard on(group.device(r));
    devices_.push_back(group.device(r));
    parts_.emplace_back(part_size(r), "ksync::cuda::node::distributed_buffer");
  }
}

template <class T>
T* distributed_buffer<T>::part(int rank) const {
  (void)part_size(rank);  // checks the rank
  return parts_[static_cast<std::size_t>(rank)].data();
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
    const device_guard on(device(r));
    if constexpr (std::is_const_v<Host>) {
      detail::copy_to_device_and_wait(part(r), host.data() + part_offset(r), bytes);  // landed on return
    } else {
      KSYNC_CUDA_CHECK(cudaMemcpy(host.data() + part_offset(r), part(r), bytes, cudaMemcpyDeviceToHost));
    }
  }
}

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
  detail::check_argument(is_known(combine), where, "combine = ", static_cast<int>(combine),
                         " is not a combine_strategy");
  detail::check_argument(combine != combine_strategy::nccl || has_nccl(), where,
                         "combine = nccl but this build of ksync has no NCCL");
  combining::strategies::dispatch(where, combine,
                                  [&]<class Strategy>() { Strategy::template run<T>(group, data, op, results); });
}

template <class T>
T reduce(device_group& group, const distributed_buffer<T>& data, reduce_op op, combine_strategy combine) {
  std::vector<T*> results(static_cast<std::size_t>(group.size()), nullptr);
  results[0] = combining::scratch_slot<T>(group, 0, group.size());
  reduce(group, data, op, combine, std::span<T* const>(results));
  T value{};
  {
    const device_guard on(group.device(0));
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
