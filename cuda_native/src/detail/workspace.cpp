// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/allocation.hpp>
#include <ksync/cuda/detail/workspace.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/mailbox.hpp>
#include <ksync/cuda/runtime.hpp>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace ksync::cuda::detail {
namespace {

// A stream is named by its id, not its handle: CUDA hands a destroyed stream's handle to the next stream made
// even while the destroyed one's work still runs (seen on an H100, driver 580.159.04: a 200 ms kernel on the
// old stream), and two streams sharing a ticket and partials would mix their reductions. CUDA documents the id
// as unique for the program's life; cudaStreamPerThread gave a different id on each of two host threads in the
// same probe. The device stays in the key only to keep one device's workspaces apart from another's should an
// id ever be per device.
using workspace_key = std::pair<int, unsigned long long>;

// One allocation: the partials, then the ticket, the device result and the grid-barrier states, each on
// its own 256-byte line.
std::size_t partial_bytes_of(std::size_t partial_slots) {
  return (partial_slots * 8 + 255) / 256 * 256;
}
std::size_t device_bytes_of(std::size_t partial_slots) {
  return partial_bytes_of(partial_slots) + 768;
}
constexpr std::size_t mailbox_size = 2 * sizeof(mailbox_slot);

// Frees a workspace's memory when its ksync::cuda::stream is destroyed, or when the process ends (the registry
// below is destroyed before the CUDA runtime is torn down: it is made after the runtime's first call), so that
// a leak check sees nothing held.
// The frees run on the workspace's device, whichever device the destroying thread has made current (a stream
// of GPU 1 destroyed while GPU 0 is current; the registry emptied at exit), and the caller's device is made
// current again after them. Noexcept, as it runs in destructors: where the device cannot be switched, the frees
// still run where the caller is (CUDA finds the allocation by its address) and the switch's error is cleared,
// so that it does not surface as a later launch's.
struct workspace_release {
  void operator()(reduce_workspace* workspace) const noexcept {
    int caller = -1;
    bool switched = false;
    if (cudaGetDevice(&caller) == cudaSuccess && caller != workspace->device && workspace->device >= 0) {
      switched = cudaSetDevice(workspace->device) == cudaSuccess;
      if (!switched) (void)cudaGetLastError();
    }
    release(memory_kind::device, workspace->partials, device_bytes_of(workspace->partial_slots));
    release(memory_kind::pinned, workspace->mailbox, mailbox_size);
    if (switched) (void)cudaSetDevice(caller);
    delete workspace;
  }
};

reduce_workspace create_workspace(cudaStream_t stream, int device) {
  const device_guard on(device);
  reduce_workspace workspace;
  workspace.device = device;
  KSYNC_CUDA_CHECK(
      cudaDeviceGetAttribute(&workspace.max_blocks_per_multiprocessor, cudaDevAttrMaxBlocksPerMultiprocessor, device));
  int concurrent_managed_access = 0;
  KSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&concurrent_managed_access, cudaDevAttrConcurrentManagedAccess, device));
  workspace.concurrent_managed_access = concurrent_managed_access != 0;
  workspace.partial_slots =
      static_cast<std::size_t>(workspace.max_blocks_per_multiprocessor) * multiprocessor_count(device);
  const std::size_t partial_bytes = partial_bytes_of(workspace.partial_slots);
  // Held by owners until the workspace is complete: a failure on the way frees what was taken. (A complete
  // workspace lives until its ksync::cuda::stream is destroyed, or until the process ends.)
  const std::size_t device_bytes = device_bytes_of(workspace.partial_slots);
  const auto free_device = [device_bytes](void* memory) { release(memory_kind::device, memory, device_bytes); };
  std::unique_ptr<void, decltype(free_device)> device_part(
      allocate(memory_kind::device, device_bytes, "ksync::cuda workspace (reductions, mailbox)"), free_device);
  char* const base = static_cast<char*>(device_part.get());
  workspace.ticket = reinterpret_cast<unsigned int*>(base + partial_bytes);
  workspace.device_result = base + partial_bytes + 256;
  workspace.barrier_states = base + partial_bytes + 512;
  // The ticket and the barrier states start at 0. On the workspace's own stream, which orders every later
  // use: a cudaMemset (legacy stream, asynchronous to the host for device memory) would not be ordered
  // before kernels on a non-blocking stream.
  KSYNC_CUDA_CHECK(cudaMemsetAsync(base, 0, device_bytes, stream));
  // The mailbox: mapped (the GPU writes it directly), zeroed (epoch 0 is never posted).
  const auto free_pinned = [](void* memory) { release(memory_kind::pinned, memory, mailbox_size); };
  std::unique_ptr<void, decltype(free_pinned)> mailbox_part(
      allocate(memory_kind::pinned, mailbox_size, "ksync::cuda workspace (reductions, mailbox)",
               cudaHostAllocMapped | cudaHostAllocPortable),
      free_pinned);
  void* const slots = mailbox_part.get();
  std::memset(slots, 0, mailbox_size);
  // Kernels write the slots through the host address (reserve()): unified addressing, as on every 64-bit
  // platform CUDA 13 supports, makes it the device address too.
  void* device_address = nullptr;
  KSYNC_CUDA_CHECK(cudaHostGetDevicePointer(&device_address, slots, 0));
  check_argument(device_address == slots, "ksync::cuda", "mapped host memory has a device address (", device_address,
                 ") other than its host address (", slots, "): unified addressing is required");
  // Complete: the workspace owns both from here.
  workspace.partials = device_part.release();
  workspace.mailbox = static_cast<mailbox_slot*>(mailbox_part.release());
  return workspace;
}

using owned_workspace = std::unique_ptr<reduce_workspace, workspace_release>;

// True while the registry exists: a ksync::cuda::stream destroyed after it (a static one made before the first
// workspace) finds nothing to free instead of a destroyed map. Constant-initialized, trivially destroyed.
std::atomic<bool> registry_alive{false};

struct workspace_registry {
  std::mutex guard;
  std::map<workspace_key, owned_workspace> by_stream;
  workspace_registry() { registry_alive.store(true); }
  ~workspace_registry() { registry_alive.store(false); }
  workspace_registry(const workspace_registry&) = delete;
  workspace_registry& operator=(const workspace_registry&) = delete;
};
workspace_registry& registry() {
  static workspace_registry instance;
  return instance;
}

// Checked outside the fault injection (KSYNC_CUDA_CHECK): counting it would move every injected failure of the
// operations that look a workspace up. It may report an error of earlier asynchronous work (or, under stream
// capture, refuse), which is thrown as any checked call's would be.
unsigned long long id_of(cudaStream_t stream) {
  unsigned long long id = 0;
  const cudaError_t status = cudaStreamGetId(stream, &id);
  if (status != cudaSuccess) throw_cuda_error(status, "cudaStreamGetId(stream, &id)", __FILE__, __LINE__);
  return id;
}

}  // namespace

const reduce_workspace& stream_workspace(cudaStream_t stream) {
  const int device = stream_device(stream);
  const workspace_key key{device, id_of(stream)};
  // One lookup per thread and stream in a row skips the lock; an entry leaves the map only when its stream is
  // destroyed, and its id never names another stream, so a cached pointer is never reached stale.
  thread_local workspace_key last_key{-1, 0};
  thread_local const reduce_workspace* last_workspace = nullptr;
  if (last_workspace != nullptr && key == last_key) return *last_workspace;

  workspace_registry& workspaces = registry();
  const std::lock_guard<std::mutex> lock(workspaces.guard);
  auto& slot = workspaces.by_stream[key];
  if (!slot) slot.reset(new reduce_workspace(create_workspace(stream, device)));
  last_key = key;
  last_workspace = slot.get();
  return *slot;
}

void release_stream_workspace(cudaStream_t stream) noexcept {
  if (!registry_alive.load()) return;  // no workspace made yet, or the process is ending
  unsigned long long id = 0;
  int device = -1;
  if (cudaStreamGetId(stream, &id) != cudaSuccess || cudaStreamGetDevice(stream, &device) != cudaSuccess) {
    // Called from a destructor: nothing to report to, and the failure must not surface as a later launch's.
    (void)cudaGetLastError();
    return;
  }
  owned_workspace released;
  {
    workspace_registry& workspaces = registry();
    const std::lock_guard<std::mutex> lock(workspaces.guard);
    const auto entry = workspaces.by_stream.find({device, id});
    if (entry == workspaces.by_stream.end()) return;
    released = std::move(entry->second);
    workspaces.by_stream.erase(entry);
  }
  if (!released) return;  // a creation that failed left an empty entry: nothing to wait for
  // The stream's kernels may still use it: freed (as `released` leaves scope) once they are done. An error
  // they hit is sticky: the next call on the device reports it. The frees (cudaFree, cudaFreeHost) may wait for
  // the whole device, which stream.hpp and host_gate.hpp warn of.
  (void)cudaStreamSynchronize(stream);
}

}  // namespace ksync::cuda::detail
