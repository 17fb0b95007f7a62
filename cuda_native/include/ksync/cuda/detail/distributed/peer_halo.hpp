// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The peer halo of a distributed matrix (ksync::cuda::mpi::distributed_csr with halo_memory::peer): where every
// rank a rank exchanges with runs on the same node, each rank maps the ghost buffers of the ranks it sends to
// (CUDA IPC) and its GPU writes their ghosts there itself. The GPUs order the exchange among themselves with
// counters in device memory: no host waits for a GPU or for another rank, and nothing passes through host memory
// or the MPI library once the matrix is made.
//
// Each rank owns a device buffer for its ghosts and one of signals, one 32-bit counter a neighbour:
//   pushed[s]  written by source s once its values for this product are in this rank's ghost buffer;
//   free[t]    written by target t once its ghost buffer may be overwritten for this product.
// Every rank makes the same products, in the same order; the first, third, ... carry the value v = 1, the second,
// fourth, ... v = 2. On each rank:
//   1. `stream` writes v into each source's free[this rank]: every earlier reader of this rank's ghost buffer
//      (the last product's boundary rows and ghost copy) was enqueued on `stream` before it. The halo stream waits
//      for `stream` (an event: x complete).
//   2. (the caller enqueues the interior rows on `stream`);
//   3. the halo stream, per target: waits until its own free[target] equals v, gathers the target's entries
//      straight into the target's ghost buffer, writes v into the target's pushed[this rank];
//   4. `stream` waits for its own gathers (the next work on `stream` may overwrite x), then until every
//      pushed[source] equals v.
// A stream memory operation's write follows the earlier work of its stream and makes that work's writes visible
// first (cuStreamWriteValue32 without CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER); a wait (cuStreamWaitValue32,
// CU_STREAM_WAIT_VALUE_EQ) holds the stream's later work. Two values suffice: a counter is written again only
// after its reader saw the last value (a rank writes free for product k + 1 behind its wait for pushed of product
// k, which its source wrote behind its wait for free of product k; and the other way round), and each reader
// waits for the products' values in order on one stream, so it never meets a value two products old. A rank may
// therefore enqueue products ahead of the others: its waits hold its GPU, not its host.
//
// Since each value is the same every other product, a product is captured once into a CUDA graph (for each pair
// of vectors, each value and each priority of the caller's stream) and launched from then on: one call from the
// host where the steps above take a dozen (launch_captured), unless the driver refuses to capture them. A product
// after a failure takes the steps one by one instead, each tried on its own, so that every counter a neighbour
// waits for is written and every wait that orders the next product's writes is enqueued. Those steps put the halo's
// work on `stream` too (halo_steps_on), so that graphs and steps await every counter's values in order on one
// stream: on the halo stream they would be ordered with the graphs only through events, and an event call that
// failed could let a wait meet a value two products old. Only a halo whose very first product found captures
// refused keeps the halo stream, for good.
//
// Destroying a peer halo is collective, as making it is: each rank unmaps the buffers it wrote into and tells
// their owners, then frees its own buffers once every rank that mapped them has said so. A rank that never says so
// within `release_wait` leaves them allocated (a leak, reported on stderr), since CUDA leaves freeing a buffer
// another process still maps undefined.
#pragma once

#include <ksync/cuda/detail/distributed/rows.hpp>
#include <ksync/cuda/detail/driver_entry.hpp>
#include <ksync/cuda/detail/graph_capture.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/runtime.hpp>  // copy_to_device_and_wait
#include <ksync/cuda/stream.hpp>
#include <ksync/halo.hpp>
#include <ksync/mpi/collective.hpp>
#include <ksync/mpi/halo.hpp>  // ghost_destination

#include <mpi.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <source_location>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ksync::cuda::detail::distributed {

template <class T>
class peer_halo {
 public:
  // How long a rank's destructor waits for the ranks that mapped its buffers to unmap them.
  static constexpr std::chrono::seconds release_wait{30};

  // Collective over comm, on the current device: maps the ghost buffers and signals of the ranks `plan` (its send
  // side complete) exchanges with. Every rank throws collective_error naming the first problem where a rank
  // exchanges with one on another node, the driver has no stream memory operations, or CUDA refuses to export or
  // map a buffer.
  peer_halo(MPI_Comm comm, const halo_plan& plan, const char* where)
      : rank_(plan.rank), sources_(plan.source_ranks), targets_(plan.target_ranks) {
    KSYNC_MPI_CHECK(MPI_Comm_dup(comm, &comm_));
    try {
      connect(plan, where);
    } catch (...) {
      // Every rank gets here (the checks in connect are collective): each unmaps what it opened before any frees
      // what was mapped.
      release_mappings();
      MPI_Barrier(comm_);
      free_own();
      MPI_Comm_free(&comm_);
      throw;
    }
  }

  peer_halo(const peer_halo&) = delete;
  peer_halo& operator=(const peer_halo&) = delete;

  ~peer_halo() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized != 0) return;  // no rank can say it unmapped anything any more: all is kept until the process ends
    // This rank's last writes into its targets' buffers must be done before it unmaps them. They wait for the
    // targets' counters: where a target made fewer products, they never run, and everything is kept instead.
    const auto deadline = std::chrono::steady_clock::now() + release_wait;
    cudaError_t pushes = cudaEventQuery(pushes_done_->get());
    while (pushes == cudaErrorNotReady && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
      pushes = cudaEventQuery(pushes_done_->get());
    }
    if (pushes == cudaErrorNotReady) {
      std::fprintf(stderr,
                   "ksync::cuda::mpi::distributed_csr: rank %d keeps its peer halo (buffers and mappings): its last "
                   "product still waits for a neighbour after %lld s (did every rank make the same products?)\n",
                   rank_, static_cast<long long>(release_wait.count()));
      return;
    }
    for (captured_product& captured : captured_)  // a graph in flight is freed once it completes
      for (cudaGraphExec_t& graph : captured.graphs)
        destroy_graph(graph);
    release_mappings();
    std::vector<MPI_Request> sends;
    std::vector<MPI_Request> receives;
    // Every neighbour mapped this rank's signals, and sources its ghosts: each tells when it unmapped both.
    for (const int neighbour : neighbours())
      MPI_Isend(nullptr, 0, MPI_BYTE, neighbour, released_tag, comm_, next(sends));
    for (const int neighbour : neighbours())
      MPI_Irecv(nullptr, 0, MPI_BYTE, neighbour, released_tag, comm_, next(receives));
    int all = 0;
    while (MPI_Testall(static_cast<int>(receives.size()), receives.data(), &all, MPI_STATUSES_IGNORE) == MPI_SUCCESS &&
           all == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    if (all != 0) {
      free_own();
    } else {
      std::fprintf(stderr,
                   "ksync::cuda::mpi::distributed_csr: rank %d keeps its peer halo buffers (%zu bytes): a rank that "
                   "maps them did not release them within %lld s\n",
                   rank_, ghost_count_ * sizeof(T) + neighbours().size() * sizeof(std::uint32_t),
                   static_cast<long long>(release_wait.count()));
      for (MPI_Request& request : receives) {
        if (request == MPI_REQUEST_NULL) continue;
        MPI_Cancel(&request);
        MPI_Request_free(&request);
      }
    }
    MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
    MPI_Comm_free(&comm_);
  }

  // The rank's ghost buffer (plan.ghosts.size() values, device memory), where its sources write.
  [[nodiscard]] const T* ghosts() const noexcept { return ghosts_; }

  // The value of the next product (1, 2, 1, ...): called once a product, before its steps.
  [[nodiscard]] std::uint32_t next_value() const noexcept {
    last_value_ = last_value_ == 1 ? 2 : 1;
    return last_value_;
  }

  // What a captured product reads and writes besides the matrix's own arrays, and the priority its rows run at: its
  // graphs are kept for each key.
  struct product_key {
    const void* x = nullptr;
    const void* y = nullptr;
    ksync::mpi::detail::ghost_destination destination = ksync::mpi::detail::ghost_destination::x;
    int priority = 0;  // the caller's stream's: the graph's row nodes keep it (its halo nodes run at the highest)
    friend bool operator==(const product_key&, const product_key&) = default;
  };
  // Launches on `stream` the product of `key` and `value`, captured the first time from enqueue(main, branch), which
  // enqueues steps 1 to 4 and the rows with `value` on a capture stream `main` (at key.priority) and a second one,
  // `branch` (at the device's highest priority, for the halo). Returns false, having launched nothing, where the
  // driver refuses to capture or instantiate it; captures_refused() is true from then on. Any other failure is
  // thrown, having launched nothing. The caller then takes the steps one by one.
  template <class Enqueue>
  [[nodiscard]] bool launch_captured(cudaStream_t stream, const product_key& key, std::uint32_t value,
                                     const Enqueue& enqueue) const {
    const auto found = std::ranges::find(captured_, key, &captured_product::key);
    captured_product* entry = nullptr;
    if (found != captured_.end()) {
      std::rotate(found, found + 1, captured_.end());  // the key used last goes last, the least used first
      entry = &captured_.back();
    }
    cudaGraphExec_t graph = entry != nullptr ? entry->graphs[value - 1] : nullptr;
    if (graph == nullptr) {
      graph = capture(key.priority, enqueue);
      if (graph == nullptr) {
        captures_refused_ = true;
        return false;
      }
      if (entry == nullptr) {  // a key is dropped only for a graph that was made
        if (captured_.size() == max_captured) {
          for (cudaGraphExec_t& dropped : captured_.front().graphs)
            destroy_graph(dropped);
          captured_.erase(captured_.begin());
        }
        entry = &captured_.emplace_back(captured_product{.key = key});
      }
      entry->graphs[value - 1] = graph;
    }
    halo_on_caller_stream_ = true;  // from the first attempt to launch a graph on
    KSYNC_CUDA_CHECK(cudaGraphLaunch(graph, stream));
    graph_launched_ = true;
    return true;
  }

  // Step 1: `stream` tells the sources this rank's ghosts are free, the halo stream (which may be `stream`) waits
  // for x. Every source is told even where a step failed (the first failure is thrown after): its GPU waits for it.
  void start(cudaStream_t stream, cudaStream_t halo, std::uint32_t value) const {
    std::exception_ptr failed;
    for (const std::uint32_t* free : remote_free_)
      keep_first(failed,
                 [&] { stream_value(stream_write_value32(), stream, free, value, "cuStreamWriteValue32 (free)"); });
    keep_first(failed, [&] {
      x_ready_->record(stream);
      x_ready_->make_wait(halo);
    });
    if (failed) std::rethrow_exception(failed);
  }
  // Step 3: each target's entries, gathered into its ghost buffer once it is free, and the target told. Every
  // target is told even where a wait or a gather failed (the first failure is thrown after): its GPU waits for it.
  // Where this step is being captured (`in_capture`), the destructor's event is recorded as a node of the graph.
  void push(cudaStream_t halo, const T* x, const std::int64_t* send_indices, std::uint32_t value,
            bool in_capture) const {
    std::exception_ptr failed;
    for (std::size_t t = 0; t < links_.size(); ++t) {
      keep_first(failed, [&] {
        stream_value(stream_wait_value32(), halo, signals_ + sources_.size() + t, value, "cuStreamWaitValue32 (free)");
        gather(halo, x, send_indices + links_[t].first, links_[t].count, links_[t].ghosts);
      });
      keep_first(failed, [&] {
        stream_value(stream_write_value32(), halo, links_[t].pushed, value, "cuStreamWriteValue32 (pushed)");
      });
    }
    // Also after a failure, the destructor waits for it. Where the free wait failed to enqueue, the pushed write is
    // still made (a target that never sees it waits forever), though it may then land before the target saw the last
    // value: only a driver that refuses a stream memory operation it took before gets there.
    keep_first(failed, [&] {
      KSYNC_CUDA_CHECK(cudaEventRecordWithFlags(pushes_done_->get(), halo,
                                                in_capture ? cudaEventRecordExternal : cudaEventRecordDefault));
    });
    keep_first(failed, [&] { gathered_->record(halo); });
    if (failed) std::rethrow_exception(failed);
  }
  // Step 4: `stream` waits for this rank's own gathers, then for every source's values. Also where this rank failed
  // (each wait tried on its own, the first failure thrown after): the next product's free counters are written
  // behind these waits, which is what lets two values tell the products apart. Own gathers first: a graph whose
  // branches CUDA runs one after the other, in any order their dependencies allow, still pushes before it waits.
  void wait_for_sources(cudaStream_t stream, std::uint32_t value) const {
    std::exception_ptr failed;
    keep_first(failed, [&] { gathered_->make_wait(stream); });
    for (std::size_t s = 0; s < sources_.size(); ++s)
      keep_first(failed, [&] {
        stream_value(stream_wait_value32(), stream, signals_ + s, value, "cuStreamWaitValue32 (pushed)");
      });
    if (failed) std::rethrow_exception(failed);
  }

  // Whether the driver refused to capture a product: each product then takes its steps one by one.
  [[nodiscard]] bool captures_refused() const noexcept { return captures_refused_; }
  // Whether a product of this halo ran as a graph.
  [[nodiscard]] bool graph_launched() const noexcept { return graph_launched_; }
  // The stream for the halo's steps of a product taken one by one: `stream` itself, unless captures were refused
  // before any product put its halo's work there (the top of this file says why).
  [[nodiscard]] cudaStream_t halo_steps_on(cudaStream_t stream, cudaStream_t halo) const noexcept {
    if (!captures_refused_) halo_on_caller_stream_ = true;
    return halo_on_caller_stream_ ? stream : halo;
  }

 private:
  // The messages of the matrix's making and destruction (none travels per product): what a rank tells its sources,
  // what it tells its targets (a rank that is both to another sends it one of each, told apart by the tag), and
  // that it unmapped its neighbours' buffers.
  static constexpr int to_source_tag = 1;
  static constexpr int to_target_tag = 2;
  static constexpr int released_tag = 3;
  // The keys whose products stay captured (the solver's products use one or two).
  static constexpr std::size_t max_captured = 4;

  struct captured_product {
    product_key key;
    std::array<cudaGraphExec_t, 2> graphs{};  // for the values 1 and 2
  };

  struct target_link {
    void* ghosts_base = nullptr;      // the mapped buffers, for cudaIpcCloseMemHandle
    T* ghosts = nullptr;              // where this rank's values start in the target's ghost buffer
    std::uint32_t* pushed = nullptr;  // the target's pushed[this rank]
    std::int64_t first = 0;           // this rank's send indices for the target: [first, first + count)
    std::int64_t count = 0;
  };
  // What a rank tells each neighbour: its buffers, where the neighbour's values go (a source) and which counter is
  // the neighbour's.
  struct exported {
    cudaIpcMemHandle_t ghosts;
    cudaIpcMemHandle_t signals;
    std::int64_t offset;  // where the source's values start in the ghost buffer (a source only)
    std::int64_t count;
    std::int64_t slot;  // the neighbour's counter in the signals
  };

  static MPI_Request* next(std::vector<MPI_Request>& requests) { return &requests.emplace_back(MPI_REQUEST_NULL); }
  [[nodiscard]] std::vector<int> neighbours() const {
    std::vector<int> all(sources_);
    all.insert(all.end(), targets_.begin(), targets_.end());
    return all;
  }

  template <class Step>
  static void keep_first(std::exception_ptr& failed, const Step& step) {
    try {
      step();
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  }
  // A stream memory operation on `counter` with the product's value: the write (cuStreamWriteValue32, which makes
  // the stream's earlier writes visible first) or the wait (cuStreamWaitValue32 until the counter equals it). Not
  // counted by ksync::cuda::fail_cuda_call_after: a neighbour's GPU waits for each write.
  static void stream_value(stream_value_function operation, cudaStream_t stream, const std::uint32_t* counter,
                           std::uint32_t value, const char* call,
                           std::source_location at = std::source_location::current()) {
    const unsigned int flags = operation == stream_write_value32() ? unsigned{CU_STREAM_WRITE_VALUE_DEFAULT}
                                                                   : unsigned{CU_STREAM_WAIT_VALUE_EQ};
    const CUresult status =
        operation(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(counter), value, flags);
    if (status != CUDA_SUCCESS)  // the driver's codes are the runtime's where both have one; its own name is kept
      throw_cuda_error(
          static_cast<cudaError_t>(status),
          (std::string(call) + " (" + driver_error_name(status) + ", CUresult " + std::to_string(status) + ")").c_str(),
          at.file_name(), static_cast<int>(at.line()));
  }

  // Collective: makes this rank's buffers, trades handles with the neighbours, maps theirs.
  void connect(const halo_plan& plan, const char* where) {
    ksync::mpi::detail::local_failure setup;
    std::vector<exported> to_sources(sources_.size());
    std::vector<exported> to_targets(targets_.size());
    try {
      check_same_node(where);
      ksync::detail::check_argument(stream_wait_value32() != nullptr && stream_write_value32() != nullptr, where,
                                    "halo = peer, but the CUDA driver offers no stream memory operations "
                                    "(cuStreamWaitValue32, cuStreamWriteValue32)");
      ghost_count_ = plan.ghosts.size();
      // IPC maps cudaMalloc's memory only. The counters are 0 before any neighbour can map them.
      // A rank that exchanges nothing (one rank, or an empty block) takes part in the collective steps only.
      void* memory = nullptr;
      const std::vector<std::uint32_t> zeros(neighbours().size(), 0);
      if (!zeros.empty()) {
        KSYNC_CUDA_CHECK(cudaMalloc(&memory, zeros.size() * sizeof(std::uint32_t)));
        signals_ = static_cast<std::uint32_t*>(memory);
        copy_to_device_and_wait(signals_, zeros.data(), zeros.size() * sizeof(std::uint32_t));
      }
      if (ghost_count_ > 0) {
        KSYNC_CUDA_CHECK(cudaMalloc(&memory, ghost_count_ * sizeof(T)));
        ghosts_ = static_cast<T*>(memory);
      }
      x_ready_ = std::make_unique<event>(cudaEventDisableTiming);
      gathered_ = std::make_unique<event>(cudaEventDisableTiming);
      pushes_done_ = std::make_unique<event>(cudaEventDisableTiming);
      captured_.reserve(max_captured);  // a graph once made is always stored: no reallocation can throw
      cudaIpcMemHandle_t ghosts{};
      cudaIpcMemHandle_t signals{};
      if (ghosts_ != nullptr) KSYNC_CUDA_CHECK(cudaIpcGetMemHandle(&ghosts, ghosts_));
      if (signals_ != nullptr) KSYNC_CUDA_CHECK(cudaIpcGetMemHandle(&signals, signals_));
      for (std::size_t s = 0; s < sources_.size(); ++s)
        to_sources[s] = {ghosts, signals, plan.source_offsets[s], plan.source_offsets[s + 1] - plan.source_offsets[s],
                         static_cast<std::int64_t>(s)};
      for (std::size_t t = 0; t < targets_.size(); ++t)
        to_targets[t] = {ghosts, signals, 0, 0, static_cast<std::int64_t>(sources_.size() + t)};
    } catch (...) {
      setup.hold();
    }
    setup.check_everywhere(comm_, where, "making the peer halo's buffers");
    // The handles travel as bytes: every rank posts all of its receives and sends, then waits.
    std::vector<exported> from_targets(targets_.size());
    std::vector<exported> from_sources(sources_.size());
    std::vector<MPI_Request> requests;
    for (std::size_t t = 0; t < targets_.size(); ++t)
      KSYNC_MPI_CHECK(
          MPI_Irecv(&from_targets[t], sizeof(exported), MPI_BYTE, targets_[t], to_source_tag, comm_, next(requests)));
    for (std::size_t s = 0; s < sources_.size(); ++s)
      KSYNC_MPI_CHECK(
          MPI_Irecv(&from_sources[s], sizeof(exported), MPI_BYTE, sources_[s], to_target_tag, comm_, next(requests)));
    for (std::size_t s = 0; s < sources_.size(); ++s)
      KSYNC_MPI_CHECK(
          MPI_Isend(&to_sources[s], sizeof(exported), MPI_BYTE, sources_[s], to_source_tag, comm_, next(requests)));
    for (std::size_t t = 0; t < targets_.size(); ++t)
      KSYNC_MPI_CHECK(
          MPI_Isend(&to_targets[t], sizeof(exported), MPI_BYTE, targets_[t], to_target_tag, comm_, next(requests)));
    KSYNC_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
    try {
      for (std::size_t t = 0; t < targets_.size(); ++t) {
        const std::int64_t count = plan.target_offsets[t + 1] - plan.target_offsets[t];
        ksync::detail::check_argument(from_targets[t].count == count, where, "rank ", targets_[t], " expects ",
                                      from_targets[t].count, " values from rank ", rank_, ", which sends ", count);
        target_link& link = links_.emplace_back();
        link.first = plan.target_offsets[t];
        link.count = count;
        KSYNC_CUDA_CHECK(
            cudaIpcOpenMemHandle(&link.ghosts_base, from_targets[t].ghosts, cudaIpcMemLazyEnablePeerAccess));
        link.ghosts = static_cast<T*>(link.ghosts_base) + from_targets[t].offset;
        link.pushed =
            static_cast<std::uint32_t*>(open_signals(targets_[t], from_targets[t].signals)) + from_targets[t].slot;
      }
      for (std::size_t s = 0; s < sources_.size(); ++s)
        remote_free_.push_back(static_cast<std::uint32_t*>(open_signals(sources_[s], from_sources[s].signals)) +
                               from_sources[s].slot);
    } catch (...) {
      setup.hold();
    }
    setup.check_everywhere(comm_, where, "mapping the neighbours' peer halo buffers (CUDA IPC)");
  }

  // One product's graph, captured from enqueue(main, branch) (launch_captured); null where the driver refuses to
  // capture or instantiate it.
  template <class Enqueue>
  [[nodiscard]] cudaGraphExec_t capture(int priority, const Enqueue& enqueue) const {
    const ksync::cuda::stream branch(stream_priority_range().greatest);
    try {
      return capture_graph([&](cudaStream_t main) { enqueue(main, branch.get()); },
                           cudaGraphInstantiateFlagUseNodePriority, priority);
    } catch (const cuda_error& error) {
      const cudaError_t code = error.code();
      if (code == cudaErrorNotSupported || code == cudaErrorStreamCaptureUnsupported ||
          code == cudaErrorStreamCaptureInvalidated)
        return nullptr;
      throw;
    }
  }

  // A neighbour's signals, mapped once even where it is both a source and a target (a handle opened twice in one
  // process returns the same mapping and counts it twice).
  void* open_signals(int neighbour, const cudaIpcMemHandle_t& handle) {
    for (const auto& [rank, base] : signals_mapped_)
      if (rank == neighbour) return base;
    void* base = nullptr;
    KSYNC_CUDA_CHECK(cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess));
    signals_mapped_.emplace_back(neighbour, base);
    return base;
  }

  // Throws std::invalid_argument naming the first rank this one exchanges with that runs on another node.
  void check_same_node(const char* where) const {
    MPI_Comm node = MPI_COMM_NULL;
    KSYNC_MPI_CHECK(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Group all = MPI_GROUP_NULL;
    MPI_Group here = MPI_GROUP_NULL;
    MPI_Comm_group(comm_, &all);
    MPI_Comm_group(node, &here);
    std::vector<int> ranks = neighbours();
    std::vector<int> on_node(ranks.size());
    MPI_Group_translate_ranks(all, static_cast<int>(ranks.size()), ranks.data(), here, on_node.data());
    MPI_Group_free(&here);
    MPI_Group_free(&all);
    MPI_Comm_free(&node);
    for (std::size_t k = 0; k < ranks.size(); ++k)
      ksync::detail::check_argument(on_node[k] != MPI_UNDEFINED, where, "halo = peer, but rank ", rank_,
                                    " exchanges with rank ", ranks[k],
                                    ", which runs on another node (CUDA IPC maps memory within a node)");
  }

  void release_mappings() noexcept {
    for (const target_link& link : links_)
      if (link.ghosts_base != nullptr) (void)cudaIpcCloseMemHandle(link.ghosts_base);
    links_.clear();
    for (const auto& [rank, base] : signals_mapped_)
      (void)cudaIpcCloseMemHandle(base);
    signals_mapped_.clear();
    remote_free_.clear();
  }
  void free_own() noexcept {
    if (ghosts_ != nullptr) (void)cudaFree(ghosts_);
    if (signals_ != nullptr) (void)cudaFree(signals_);
    ghosts_ = nullptr;
    signals_ = nullptr;
  }

  int rank_;
  std::vector<int> sources_;       // the ranks that write into this rank's ghosts (plan.source_ranks)
  std::vector<int> targets_;       // the ranks whose ghosts this rank writes (plan.target_ranks)
  MPI_Comm comm_ = MPI_COMM_NULL;  // a duplicate: the handles and the release travel apart from the caller's messages
  std::size_t ghost_count_ = 0;
  T* ghosts_ = nullptr;                 // cudaMalloc'd, as IPC needs
  std::uint32_t* signals_ = nullptr;    // pushed[source]..., then free[target]...
  std::unique_ptr<event> x_ready_;      // on `stream`: x complete, for the gathers
  std::unique_ptr<event> gathered_;     // on the halo stream: this rank's gathers done (the product's join)
  std::unique_ptr<event> pushes_done_;  // the last product's pushes done, for the destructor (never recorded: done)
  std::vector<target_link> links_;
  std::vector<std::uint32_t*> remote_free_;  // each source's free[this rank]
  std::vector<std::pair<int, void*>> signals_mapped_;
  mutable bool captures_refused_ = false;
  mutable bool graph_launched_ = false;
  mutable bool halo_on_caller_stream_ = false;  // a product's halo work went on the caller's stream: it stays there
  mutable std::uint32_t last_value_ = 2;        // the last product's value: the first is 1 (the counters start at 0)
  mutable std::vector<captured_product> captured_;  // the least recently used first; max_captured reserved
};

}  // namespace ksync::cuda::detail::distributed
