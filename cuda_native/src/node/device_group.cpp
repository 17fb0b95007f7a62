// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/node/device_group.hpp>
#include <ksync/cuda/runtime.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <utility>

namespace ksync::cuda::node {

// A staged copy goes through two pinned buffers so the device-to-host copy of chunk k + 1 overlaps the
// host-to-device copy of chunk k. Each link (ordered pair of ranks) has its own two streams — downloads on
// the source device, uploads on the destination — so that a GPU's download for one link and its upload for
// another run on its two copy engines at once (one stream per GPU would alternate them in lockstep with the
// other GPU's). Events order the link's streams: `full[slot]` (on the source device) says a chunk has
// landed in the buffer, `drained[slot]` (on the destination device) says it has been read out.
struct device_group::staging_area {
  static constexpr std::size_t chunk_bytes = std::size_t{4} << 20;
  struct link {
    pinned_buffer<std::byte> buffer{2 * chunk_bytes};
    std::unique_ptr<ksync::cuda::stream> downloads;  // on the source device
    std::unique_ptr<ksync::cuda::stream> uploads;    // on the destination device
    std::array<std::unique_ptr<event>, 2> full;
    std::array<std::unique_ptr<event>, 2> drained;
    std::size_t next_slot = 0;  // the buffer the link's next chunk goes through
  };
  std::map<std::pair<int, int>, link> links;  // (from rank, to rank)
};

namespace {
constexpr std::size_t scratch_slot_bytes = 8;  // one value of the widest supported type
}  // namespace

device_group::device_group(std::vector<int> devices, peer_policy policy) : devices_(std::move(devices)) {
  const char* where = "ksync::cuda::node::device_group";
  detail::check_argument(!devices_.empty(), where, "devices is empty: a group needs at least one GPU");
  const int visible = visible_device_count();
  for (std::size_t r = 0; r < devices_.size(); ++r) {
    detail::check_argument(devices_[r] >= 0 && devices_[r] < visible, where, "devices[", r, "] = ", devices_[r],
                           " but ", visible, " GPU(s) are visible (ids 0 .. ", visible - 1, ")");
    detail::check_argument(std::count(devices_.begin(), devices_.end(), devices_[r]) == 1, where, "devices[", r,
                           "] = ", devices_[r], " is listed more than once");
  }
  const int count = size();
  paths_.assign(static_cast<std::size_t>(count) * static_cast<std::size_t>(count), copy_path::staged_through_host);
  for (int from = 0; from < count; ++from) {
    const device_guard on(devices_[from]);
    streams_.emplace_back();
    tails_.emplace_back(cudaEventDisableTiming);
    scratch_.emplace_back(scratch_slot_bytes * static_cast<std::size_t>(count + 1), where);
    for (int to = 0; to < count; ++to) {
      int can_access = 0;
      if (from != to && policy == peer_policy::automatic)
        KSYNC_CUDA_CHECK(cudaDeviceCanAccessPeer(&can_access, devices_[from], devices_[to]));
      if (from == to || can_access == 0) continue;
      // Lets kernels and copies on `from` reach `to`'s memory; enabling twice is not an error here.
      const cudaError_t status = cudaDeviceEnablePeerAccess(devices_[to], 0);
      if (status == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();
      } else {
        KSYNC_CUDA_CHECK(status);
      }
      paths_[path_index(from, to)] = copy_path::peer;
    }
    paths_[path_index(from, from)] = copy_path::peer;  // a copy within one device
  }
}

std::size_t device_group::path_index(int from_rank, int to_rank) const noexcept {
  return static_cast<std::size_t>(from_rank) * devices_.size() + static_cast<std::size_t>(to_rank);
}

device_group device_group::first(int count, peer_policy policy) {
  const int visible = visible_device_count();
  detail::check_argument(count >= 1 && count <= visible, "ksync::cuda::node::device_group::first", "count = ", count,
                         " GPU(s) requested but ", visible, " visible to this process");
  std::vector<int> devices(static_cast<std::size_t>(count));
  for (int r = 0; r < count; ++r)
    devices[static_cast<std::size_t>(r)] = r;
  return device_group(std::move(devices), policy);
}

device_group::device_group(device_group&&) noexcept = default;
device_group& device_group::operator=(device_group&&) noexcept = default;
device_group::~device_group() = default;

void device_group::check_rank(const char* where, const char* name, int rank) const {
  detail::check_argument(rank >= 0 && rank < size(), where, name, " = ", rank, " but the group has ", size(),
                         " rank(s)");
}

int device_group::device(int rank) const {
  check_rank("ksync::cuda::node::device_group::device", "rank", rank);
  return devices_[static_cast<std::size_t>(rank)];
}

cudaStream_t device_group::stream(int rank) const {
  check_rank("ksync::cuda::node::device_group::stream", "rank", rank);
  return streams_[static_cast<std::size_t>(rank)].get();
}

copy_path device_group::path(int from_rank, int to_rank) const {
  check_rank("ksync::cuda::node::device_group::path", "from_rank", from_rank);
  check_rank("ksync::cuda::node::device_group::path", "to_rank", to_rank);
  return paths_[path_index(from_rank, to_rank)];
}

void* device_group::scratch(int rank) const {
  check_rank("ksync::cuda::node::device_group::scratch", "rank", rank);
  return scratch_[static_cast<std::size_t>(rank)].data();
}

void device_group::fork_from(int from_rank) {
  check_rank("ksync::cuda::node::device_group::fork_from", "from_rank", from_rank);
  const auto from = static_cast<std::size_t>(from_rank);
  tails_[from].record(streams_[from].get());
  for (std::size_t r = 0; r < streams_.size(); ++r)
    if (r != from) tails_[from].make_wait(streams_[r].get());
}

void device_group::join_into(int into_rank) {
  check_rank("ksync::cuda::node::device_group::join_into", "into_rank", into_rank);
  const auto into = static_cast<std::size_t>(into_rank);
  for (std::size_t r = 0; r < streams_.size(); ++r) {
    if (r == into) continue;
    tails_[r].record(streams_[r].get());
    tails_[r].make_wait(streams_[into].get());
  }
}

void device_group::synchronize() const {
  for (const auto& s : streams_)
    s.synchronize();
}

copy_path device_group::copy(int to_rank, void* dst, int from_rank, const void* src, std::size_t bytes) {
  const copy_request one{.to_rank = to_rank, .dst = dst, .from_rank = from_rank, .src = src, .bytes = bytes};
  copy(std::span<const copy_request>(&one, 1));
  return path(from_rank, to_rank);
}

void device_group::copy(std::span<const copy_request> copies) {
  const char* where = "ksync::cuda::node::device_group::copy";
  std::vector<char> involved(devices_.size(), 0);
  std::vector<copy_request> peer;
  std::vector<copy_request> staged;
  for (const auto& c : copies) {
    check_rank(where, "to_rank", c.to_rank);
    check_rank(where, "from_rank", c.from_rank);
    detail::check_argument(c.bytes == 0 || (c.dst != nullptr && c.src != nullptr), where, "dst = ", c.dst,
                           " and src = ", c.src, " for ", c.bytes, " bytes");
    if (c.bytes == 0) continue;
    involved[static_cast<std::size_t>(c.from_rank)] = involved[static_cast<std::size_t>(c.to_rank)] = 1;
    (path(c.from_rank, c.to_rank) == copy_path::peer ? peer : staged).push_back(c);
  }
  const auto record_involved_tails = [&] {
    for (std::size_t r = 0; r < involved.size(); ++r)
      if (involved[r] != 0) tails_[r].record(streams_[r].get());
  };
  // Before: a peer copy runs on its source's stream, after the destination's earlier work (which may still
  // read or write dst). A staged copy runs on its link's two streams, which wait for the same tails
  // (copy_staged).
  record_involved_tails();
  for (const auto& c : peer)
    if (c.from_rank != c.to_rank)
      tails_[static_cast<std::size_t>(c.to_rank)].make_wait(streams_[static_cast<std::size_t>(c.from_rank)].get());
  for (const auto& c : peer) {
    const auto from = static_cast<std::size_t>(c.from_rank);
    const auto to = static_cast<std::size_t>(c.to_rank);
    const device_guard on(devices_[from]);
    KSYNC_CUDA_CHECK(cudaMemcpyPeerAsync(c.dst, devices_[to], c.src, devices_[from], c.bytes, streams_[from].get()));
  }
  if (!staged.empty()) copy_staged(staged);
  // After: both streams of every copy wait for both ends, so later work on either sees the copy complete.
  record_involved_tails();
  for (const auto& c : copies) {
    if (c.bytes == 0 || c.from_rank == c.to_rank) continue;
    const auto from = static_cast<std::size_t>(c.from_rank);
    const auto to = static_cast<std::size_t>(c.to_rank);
    tails_[from].make_wait(streams_[to].get());
    tails_[to].make_wait(streams_[from].get());
  }
}

void device_group::copy_staged(std::span<const copy_request> copies) {
  if (!staging_) staging_ = std::make_unique<staging_area>();
  std::vector<staging_area::link*> links;
  for (const auto& c : copies) {
    const auto from = static_cast<std::size_t>(c.from_rank);
    const auto to = static_cast<std::size_t>(c.to_rank);
    auto found = staging_->links.find({c.from_rank, c.to_rank});
    if (found == staging_->links.end()) {  // built whole before it joins the map: a failure adds no half link
      staging_area::link made;
      {
        const device_guard on(devices_[from]);
        made.downloads = std::make_unique<ksync::cuda::stream>();
        for (auto& full : made.full)
          full = std::make_unique<event>(cudaEventDisableTiming);
      }
      const device_guard on(devices_[to]);
      made.uploads = std::make_unique<ksync::cuda::stream>();
      for (auto& drained : made.drained) {
        drained = std::make_unique<event>(cudaEventDisableTiming);
        drained->record(made.uploads->get());  // both buffers start free
      }
      found = staging_->links.emplace(std::pair{c.from_rank, c.to_rank}, std::move(made)).first;
    }
    auto& link = found->second;
    // The download reads src after the source's earlier work, the upload writes dst after the
    // destination's (copy() recorded both tails just before).
    tails_[from].make_wait(link.downloads->get());
    tails_[to].make_wait(link.uploads->get());
    links.push_back(&link);
  }
  // Chunk k of every copy before chunk k + 1 of any, so copies on different links move at the same time.
  constexpr std::size_t chunk = staging_area::chunk_bytes;
  for (std::size_t offset = 0, more = 1; more != 0; offset += chunk) {
    more = 0;
    for (std::size_t i = 0; i < copies.size(); ++i) {
      const auto& c = copies[i];
      if (offset >= c.bytes) continue;
      more = 1;
      auto& link = *links[i];
      const std::size_t slot = link.next_slot;
      link.next_slot ^= 1U;
      const std::size_t count = std::min(chunk, c.bytes - offset);
      std::byte* buffer = link.buffer.data() + slot * chunk;
      link.drained[slot]->make_wait(link.downloads->get());  // the buffer's previous chunk has been read out
      {
        const device_guard on(devices_[static_cast<std::size_t>(c.from_rank)]);
        KSYNC_CUDA_CHECK(cudaMemcpyAsync(buffer, static_cast<const std::byte*>(c.src) + offset, count,
                                         cudaMemcpyDeviceToHost, link.downloads->get()));
        link.full[slot]->record(link.downloads->get());
      }
      link.full[slot]->make_wait(link.uploads->get());
      const device_guard on(devices_[static_cast<std::size_t>(c.to_rank)]);
      KSYNC_CUDA_CHECK(cudaMemcpyAsync(static_cast<std::byte*>(c.dst) + offset, buffer, count, cudaMemcpyHostToDevice,
                                       link.uploads->get()));
      link.drained[slot]->record(link.uploads->get());
    }
  }
  // The destination's stream waits for the link's last upload, which itself followed every download of the
  // link; copy() then makes the source's stream wait for the destination's.
  for (std::size_t i = 0; i < copies.size(); ++i)
    links[i]->drained[links[i]->next_slot ^ 1U]->make_wait(streams_[static_cast<std::size_t>(copies[i].to_rank)].get());
}

}  // namespace ksync::cuda::node
