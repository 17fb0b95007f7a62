// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <ksync/cuda/detail/driver_entry.hpp>
#include <ksync/cuda/detail/workspace.hpp>
#include <ksync/cuda/error.hpp>
#include <ksync/cuda/mailbox.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

namespace ksync::cuda::mailbox {
namespace {

using detail::mailbox_slot;
using detail::reduce_workspace;
using detail::stream_workspace;

// One thread: the value first, a system-scope fence, then the epoch, so that a host that sees the epoch
// sees the value too (the host reads the epoch with an acquire load).
__global__ void post_kernel(const unsigned char* source, unsigned int bytes, mailbox_slot* slot, std::uint32_t epoch) {
  for (unsigned int k = 0; k < bytes; ++k)
    static_cast<volatile unsigned char*>(slot->bytes)[k] = source[k];
  __threadfence_system();
  *static_cast<volatile std::uint32_t*>(&slot->epoch) = epoch;
}

// publish()'s fallback: the fence and the epoch alone.
__global__ void publish_kernel(std::uint32_t* epoch_word, std::uint32_t epoch) {
  __threadfence_system();
  *static_cast<volatile std::uint32_t*>(epoch_word) = epoch;
}

mailbox_slot& slot_of(const reduce_workspace& workspace, std::uint32_t epoch) {  // the slots alternate
  return workspace.mailbox[epoch % 2];
}

// Epoch 0 is what a fresh slot holds: the first post gets 1, and the count skips 0 when it wraps.
std::uint32_t next_epoch(const reduce_workspace& workspace) {
  return ++workspace.mailbox_epoch == 0 ? ++workspace.mailbox_epoch : workspace.mailbox_epoch;
}

std::atomic<bool> write_value_refused{false};  // a driver that lists it but refuses it: the kernel from then on

}  // namespace

ticket post(cudaStream_t stream, const void* source, std::size_t bytes) {
  detail::check_argument(bytes <= capacity, "ksync::cuda::mailbox::post", "bytes = ", bytes, " exceeds ", capacity);
  const reduce_workspace& workspace = stream_workspace(stream);
  const std::uint32_t epoch = next_epoch(workspace);
  post_kernel<<<1, 1, 0, stream>>>(static_cast<const unsigned char*>(source), static_cast<unsigned int>(bytes),
                                   &slot_of(workspace, epoch), epoch);
  KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::mailbox::post_kernel");
  return {epoch};
}

reservation reserve(cudaStream_t stream) {
  const reduce_workspace& workspace = stream_workspace(stream);
  const std::uint32_t epoch = next_epoch(workspace);
  mailbox_slot& slot = slot_of(workspace, epoch);
  return {.value = slot.bytes,
          .epoch = {.address = &slot.epoch, .value = epoch},
          .wait_for_stream = !workspace.concurrent_managed_access};
}

void publish(cudaStream_t stream, const reservation& reserved) {
  std::uint32_t* const epoch_word = reserved.epoch.address;  // the reserved slot's, as reserve() set it
  const auto write_value = detail::stream_write_value32();
  if (write_value != nullptr && !write_value_refused.load(std::memory_order_relaxed)) {
    // Default flags: the write waits for the stream's earlier work and fences its writes (as
    // __threadfence_system() would) before the epoch lands.
    const CUresult status = write_value(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(epoch_word),
                                        reserved.epoch.value, CU_STREAM_WRITE_VALUE_DEFAULT);
    if (status == CUDA_SUCCESS) return;
    write_value_refused.store(true, std::memory_order_relaxed);
  }
  publish_kernel<<<1, 1, 0, stream>>>(epoch_word, reserved.epoch.value);
  KSYNC_CUDA_CHECK_LAUNCH("ksync::cuda::mailbox::publish_kernel");
}

namespace {

// Spins until a slot's epoch word holds `posted`'s epoch, then copies the slot's value to `destination`; with
// `wait_for_stream` (mailbox.hpp, reservation) it then waits for the stream too: the kernel that stored the
// epoch may still be retiring.
void wait_for_epoch(cudaStream_t stream, std::uint32_t& epoch_word, const void* value, ticket posted, void* destination,
                    std::size_t bytes, const std::function<void()>& meanwhile, bool wait_for_stream) {
  // The epoch word lives in pinned memory the GPU writes; atomic_ref keeps every load a real load and
  // orders the value's loads after it.
  const std::atomic_ref<std::uint32_t> arrived(epoch_word);
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t spins = 1; arrived.load(std::memory_order_acquire) != posted.epoch; ++spins) {
    if (spins % 1024 != 0) continue;
    // Now and then: has the stream failed, or finished without writing (which would be a ksync bug)?
    const cudaError_t status = cudaStreamQuery(stream);
    if (status == cudaSuccess && arrived.load(std::memory_order_acquire) != posted.epoch)
      throw cuda_error(cudaErrorUnknown, "ksync::cuda: the stream finished but the mailbox post never arrived");
    if (status != cudaSuccess && status != cudaErrorNotReady)
      detail::throw_cuda_error(status, "ksync::cuda::mailbox::wait (cudaStreamQuery)", __FILE__, __LINE__);
    if (meanwhile) meanwhile();
    // A long wait (a big reduction, a long solve) stops burning a core once it passes a millisecond.
    if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(1)) std::this_thread::yield();
  }
  std::memcpy(destination, value, bytes);
  if (wait_for_stream) KSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace

void wait(cudaStream_t stream, ticket posted, void* destination, std::size_t bytes) {
  wait(stream, posted, destination, bytes, {});
}

void wait(cudaStream_t stream, ticket posted, void* destination, std::size_t bytes,
          const std::function<void()>& meanwhile) {
  const reduce_workspace& workspace = stream_workspace(stream);
  mailbox_slot& slot = slot_of(workspace, posted.epoch);
  wait_for_epoch(stream, slot.epoch, slot.bytes, posted, destination, bytes, meanwhile,
                 !workspace.concurrent_managed_access);
}

void wait_reserved(cudaStream_t stream, const reservation& reserved, void* destination, std::size_t bytes) {
  wait_for_epoch(stream, *reserved.epoch.address, reserved.value, ticket{reserved.epoch.value}, destination, bytes, {},
                 reserved.wait_for_stream);
}

}  // namespace ksync::cuda::mailbox
