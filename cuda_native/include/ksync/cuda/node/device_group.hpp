// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync::cuda::node::device_group — several GPUs of one node used together: one
// non-blocking stream per device, peer access enabled between every pair that supports it, and copies
// between devices that go peer to peer (cudaMemcpyPeerAsync) where they can and are staged through pinned
// host memory where they cannot. Which path a pair uses is decided once, when the group is made, and
// reported by path(); peer_policy::staged forces the host path everywhere (to measure it, or to test it on
// machines whose GPUs are peers).
//
// Ranks are positions in the group (0 .. size() - 1), devices are CUDA device ids. Peer access, once
// enabled, stays enabled for the process (other groups may rely on it). A group is not thread-safe: one host
// thread enqueues on it at a time.
#pragma once

#include <ksync/cuda/device_buffer.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/host_memory.hpp>
#include <ksync/cuda/runtime.hpp>  // device_guard
#include <ksync/cuda/stream.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace ksync::cuda::detail {
// Offsets of `parts` contiguous parts of n elements whose sizes differ by at most one: parts + 1 entries,
// the first 0 and the last n (node::distributed_buffer, node::pipeline_plan).
[[nodiscard]] inline std::vector<std::size_t> balanced_offsets(std::size_t n, std::size_t parts) {
  std::vector<std::size_t> offsets(parts + 1);
  for (std::size_t r = 0; r <= parts; ++r)
    offsets[r] = n / parts * r + std::min(r, n % parts);
  return offsets;
}

struct nccl_state;  // NCCL communicators, made on first use (src/node/nccl.cpp)
struct nccl_state_deleter {
  void operator()(nccl_state* state) const noexcept;
};
}  // namespace ksync::cuda::detail

namespace ksync::cuda::node {

enum class peer_policy {
  automatic,  // peer to peer where cudaDeviceCanAccessPeer says so, staged through the host elsewhere
  staged      // always through pinned host memory
};
enum class copy_path { peer, staged_through_host };

[[nodiscard]] constexpr std::string_view to_string(copy_path path) noexcept {
  return path == copy_path::peer ? "peer" : "staged_through_host";
}

// One copy between two ranks' memory: `bytes` from src (memory of the from_rank's device) to dst (memory of
// the to_rank's device).
struct copy_request {
  int to_rank = 0;
  void* dst = nullptr;
  int from_rank = 0;
  const void* src = nullptr;
  std::size_t bytes = 0;
};

class device_group {
 public:
  // Throws std::invalid_argument, naming the argument and its value, for an empty list, a device id outside
  // [0, visible devices) or a device listed twice.
  explicit device_group(std::vector<int> devices, peer_policy policy = peer_policy::automatic);
  // The first `count` visible devices; "fewer GPUs than requested" is a std::invalid_argument that says how
  // many are visible.
  [[nodiscard]] static device_group first(int count, peer_policy policy = peer_policy::automatic);

  device_group(device_group&&) noexcept;
  device_group& operator=(device_group&&) noexcept;
  ~device_group();

  [[nodiscard]] int size() const noexcept { return static_cast<int>(devices_.size()); }
  [[nodiscard]] int device(int rank) const;
  [[nodiscard]] cudaStream_t stream(int rank) const;
  [[nodiscard]] copy_path path(int from_rank, int to_rank) const;

  // Asynchronous copies, all at once: each is ordered after the work already enqueued on its two ranks'
  // streams, and work enqueued afterwards on either stream sees it complete; the copies of one call are not
  // ordered among themselves, so an exchange both ways runs both ways at the same time (their memory must
  // not overlap). A peer copy runs on its source's stream; a staged one moves 4 MiB chunks through two
  // pinned buffers on two streams of its own (device-to-host on the source device, host-to-device on the
  // destination), the chunks of the call's staged copies interleaved.
  void copy(std::span<const copy_request> copies);
  // One copy; returns the path it took.
  copy_path copy(int to_rank, void* dst, int from_rank, const void* src, std::size_t bytes);

  // Every stream waits for the work enqueued so far on stream(from_rank) (a fork).
  void fork_from(int from_rank);
  // stream(into_rank) waits for the work enqueued so far on every other stream (a join).
  void join_into(int into_rank);
  // Blocks the host until every stream is idle.
  void synchronize() const;

  // Device memory of device(rank) that the group's own collective operations use (reduce: one 8-byte slot
  // per rank and one for the result); not for callers.
  [[nodiscard]] void* scratch(int rank) const;
  [[nodiscard]] detail::nccl_state& nccl() const;  // the group's NCCL communicators (throws without NCCL)

 private:
  struct staging_area;
  void check_rank(const char* where, const char* name, int rank) const;
  [[nodiscard]] std::size_t path_index(int from_rank, int to_rank) const noexcept;
  void copy_staged(std::span<const copy_request> copies);

  std::vector<int> devices_;
  std::vector<copy_path> paths_;  // size() x size(), row = from
  std::vector<ksync::cuda::stream> streams_;
  std::vector<event> tails_;  // one per rank, re-recorded for every fork, join and copy
  std::vector<device_buffer<std::byte>> scratch_;
  std::unique_ptr<staging_area> staging_;  // made on the first staged copy
  mutable std::unique_ptr<detail::nccl_state, detail::nccl_state_deleter> nccl_;
};

// Whether this build of ksync can use NCCL (node::combine_strategy::nccl, node::nccl_communicator).
[[nodiscard]] bool has_nccl() noexcept;

}  // namespace ksync::cuda::node
