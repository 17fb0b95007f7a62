// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ksync_host_gate_probe: what the host can and cannot do while a stream waits on a ksync::cuda::host_gate, and
// whether the work behind the gate reads what the host stored after the hold (ksync/cuda/host_gate.hpp lists what
// the host must not do between hold() and open(); this probe is how those rules were checked on a driver). One
// mode a run:
//   data       pinned copies of 4 B to 1 MiB, and a kernel reading a pinned word, enqueued behind the gate; the
//              host stores the values after the hold: prints how many entries the work read stale;
//   calls      each host call in turn while a stream is held, a watchdog thread opening the gate after 2 s:
//              "BLOCKED" means the call waited for the held stream (in a program with no watchdog, a deadlock);
//   waitevent  whether synchronizing a stream that holds only a wait for another stream's event waits for it;
//   launch     a launch and a copy on a held stream (run it under CUDA_LAUNCH_BLOCKING=1: hold() steps aside).
// Prints CUDA_MODULE_LOADING and CUDA_LAUNCH_BLOCKING first: a kernel's first launch differs under lazy loading.
// docs/results/2026-12-06-h100-a9a5ed4 holds a run of the hand-built version this file was written from (the same
// trials, three of them named differently there). Not a test: a probe of one driver, run by hand; exits 77 without a
// GPU, 1 where the setup fails.
#include <ksync/cuda/host_gate.hpp>

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

// A failed call is printed and the probe goes on: what a call returns while a stream is held is part of the answer.
void report(cudaError_t status, const char* call) {
  if (status != cudaSuccess) std::printf("  %s -> %s\n", call, cudaGetErrorName(status));
}
#define KSYNC_PROBE_REPORT(call) report((call), #call)

using probe_clock = std::chrono::steady_clock;
double seconds_since(probe_clock::time_point start) {
  return std::chrono::duration<double>(probe_clock::now() - start).count();
}

__global__ void read_word(const volatile int* source, int* destination) {
  *destination = *source;
}
// Three kernels never launched before their trial: a first launch may load the module.
__global__ void store_11(int* p) {
  *p = 11;
}
__global__ void store_12(int* p) {
  *p = 12;
}
__global__ void store_13(int* p) {
  *p = 13;
}
__global__ void spin_for(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}
__device__ int symbol_word;

const char* variable_or_unset(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "(unset)";
}

// Holds `stream` and runs `action`, a watchdog opening the gate after 2 s.
template <class Action>
void trial(const char* name, cudaStream_t stream, Action action) {
  ksync::cuda::host_gate gate;
  if (!gate.hold(stream)) {
    std::printf("%-52s hold() returned false\n", name);
    return;
  }
  std::atomic<bool> opened_by_watchdog{false};
  std::thread watchdog([&] {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    opened_by_watchdog = true;
    gate.open();
  });
  const auto start = probe_clock::now();
  action();
  const double took = seconds_since(start);
  const bool blocked = opened_by_watchdog.load();
  watchdog.join();
  KSYNC_PROBE_REPORT(cudaDeviceSynchronize());
  std::printf("%-52s %s (%.3f s)\n", name, blocked ? "BLOCKED until the opening" : "returned", took);
}

struct buffers {
  cudaStream_t non_blocking = nullptr;
  cudaStream_t blocking = nullptr;  // waits for the legacy default stream, and it for them
  int* device = nullptr;            // 1 MiB
  int* pinned = nullptr;            // 4 MiB
  std::vector<int> pageable = std::vector<int>(1 << 20, 0);
};

void probe_data(buffers& b) {
  for (const std::size_t bytes : {std::size_t{4}, std::size_t{4096}, std::size_t{65536}, std::size_t{1} << 20}) {
    const std::size_t n = bytes / sizeof(int);
    for (std::size_t i = 0; i < n; ++i)
      b.pinned[i] = -1;
    KSYNC_PROBE_REPORT(cudaMemset(b.device, 0, bytes));
    ksync::cuda::host_gate gate;
    if (!gate.hold(b.non_blocking)) {
      std::printf("hold() returned false: no stream wait here\n");
      return;
    }
    KSYNC_PROBE_REPORT(cudaMemcpyAsync(b.device, b.pinned, bytes, cudaMemcpyHostToDevice, b.non_blocking));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const bool waiting = cudaStreamQuery(b.non_blocking) == cudaErrorNotReady;
    for (std::size_t i = 0; i < n; ++i)
      b.pinned[i] = 1000 + static_cast<int>(i);
    gate.open();
    KSYNC_PROBE_REPORT(cudaStreamSynchronize(b.non_blocking));
    std::vector<int> back(n);
    KSYNC_PROBE_REPORT(cudaMemcpy(back.data(), b.device, bytes, cudaMemcpyDeviceToHost));
    std::size_t stale = 0;
    for (std::size_t i = 0; i < n; ++i)
      stale += back[i] != 1000 + static_cast<int>(i) ? 1 : 0;
    std::printf("pinned memcpy %8zu B behind the gate: waiting=%d, stale entries %zu of %zu\n", bytes, waiting ? 1 : 0,
                stale, n);
  }
  // A kernel reading a pinned word it has read before (caches warm); the word changes after the enqueue.
  int stale_rounds = 0;
  for (int round = 0; round < 200; ++round) {
    b.pinned[0] = round * 2;
    read_word<<<1, 1, 0, b.non_blocking>>>(b.pinned, b.device);
    KSYNC_PROBE_REPORT(cudaStreamSynchronize(b.non_blocking));
    ksync::cuda::host_gate gate;
    (void)gate.hold(b.non_blocking);
    read_word<<<1, 1, 0, b.non_blocking>>>(b.pinned, b.device + 1);
    std::atomic_ref<int>(b.pinned[0]).store(round * 2 + 1, std::memory_order_release);
    gate.open();
    int read = 0;
    KSYNC_PROBE_REPORT(cudaStreamSynchronize(b.non_blocking));
    KSYNC_PROBE_REPORT(cudaMemcpy(&read, b.device + 1, sizeof(int), cudaMemcpyDeviceToHost));
    stale_rounds += read != round * 2 + 1 ? 1 : 0;
  }
  std::printf("kernel read of pinned behind the gate: stale in %d of 200 rounds\n", stale_rounds);
}

void probe_calls(buffers& b) {
  const cudaStream_t held = b.non_blocking;
  trial("cudaEventSynchronize(event on another stream)", held, [&] {
    cudaEvent_t event = nullptr;
    KSYNC_PROBE_REPORT(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    KSYNC_PROBE_REPORT(cudaEventRecord(event, b.blocking));
    KSYNC_PROBE_REPORT(cudaEventSynchronize(event));
    KSYNC_PROBE_REPORT(cudaEventDestroy(event));
  });
  trial("pageable cudaMemcpyAsync H2D on the held stream", held,
        [&] { KSYNC_PROBE_REPORT(cudaMemcpyAsync(b.device, b.pageable.data(), 4096, cudaMemcpyHostToDevice, held)); });
  trial("first launch of a kernel on the held stream", held, [&] {
    store_11<<<1, 1, 0, held>>>(b.device);
    KSYNC_PROBE_REPORT(cudaGetLastError());
  });
  trial("cudaFuncGetAttributes of a never-used kernel", held, [&] {
    cudaFuncAttributes attributes{};
    KSYNC_PROBE_REPORT(cudaFuncGetAttributes(&attributes, store_12));
  });
  trial("first launch of a kernel on another stream", held, [&] {
    store_13<<<1, 1, 0, b.blocking>>>(b.device);
    KSYNC_PROBE_REPORT(cudaGetLastError());
  });
  trial("second launch (loaded kernel) on the held stream", held, [&] {
    store_11<<<1, 1, 0, held>>>(b.device);
    KSYNC_PROBE_REPORT(cudaGetLastError());
  });
  trial("cudaMalloc 64 MiB + cudaFree", held, [&] {
    void* p = nullptr;
    KSYNC_PROBE_REPORT(cudaMalloc(&p, std::size_t{64} << 20));
    KSYNC_PROBE_REPORT(cudaFree(p));
  });
  trial("cudaMalloc 64 MiB only (kept)", held, [&] {
    void* p = nullptr;
    KSYNC_PROBE_REPORT(cudaMalloc(&p, std::size_t{64} << 20));
  });
  trial("cudaHostAlloc 1 MiB + cudaFreeHost", held, [&] {
    void* p = nullptr;
    KSYNC_PROBE_REPORT(cudaHostAlloc(&p, std::size_t{1} << 20, cudaHostAllocDefault));
    KSYNC_PROBE_REPORT(cudaFreeHost(p));
  });
  trial("cudaMallocAsync+FreeAsync on another stream+sync it", held, [&] {
    void* p = nullptr;
    KSYNC_PROBE_REPORT(cudaMallocAsync(&p, std::size_t{1} << 20, b.blocking));
    KSYNC_PROBE_REPORT(cudaFreeAsync(p, b.blocking));
    KSYNC_PROBE_REPORT(cudaStreamSynchronize(b.blocking));
  });
  trial("held BLOCKING stream, cudaMemcpyToSymbol", b.blocking, [&] {
    const int value = 1;
    KSYNC_PROBE_REPORT(cudaMemcpyToSymbol(symbol_word, &value, sizeof(int)));
  });
  trial("held BLOCKING stream, cudaMemcpy H2D (sync)", b.blocking,
        [&] { KSYNC_PROBE_REPORT(cudaMemcpy(b.device, b.pinned, sizeof(int), cudaMemcpyHostToDevice)); });
  trial("held non-blocking stream, cudaMemcpyToSymbol", held, [&] {
    const int value = 1;
    KSYNC_PROBE_REPORT(cudaMemcpyToSymbol(symbol_word, &value, sizeof(int)));
  });
}

void probe_wait_event(buffers& b) {
  cudaEvent_t event = nullptr;
  KSYNC_PROBE_REPORT(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  spin_for<<<1, 1, 0, b.blocking>>>(2'000'000'000LL);  // about a second at 2 GHz
  KSYNC_PROBE_REPORT(cudaEventRecord(event, b.blocking));
  KSYNC_PROBE_REPORT(cudaStreamWaitEvent(b.non_blocking, event, 0));
  const auto start = probe_clock::now();
  KSYNC_PROBE_REPORT(cudaStreamSynchronize(b.non_blocking));
  std::printf("cudaStreamSynchronize of a stream holding only an event wait: %.3f s (spin on the other ~1 s)\n",
              seconds_since(start));
  KSYNC_PROBE_REPORT(cudaDeviceSynchronize());
  KSYNC_PROBE_REPORT(cudaEventDestroy(event));
}

void probe_launch(buffers& b) {
  trial("launch on the held stream", b.non_blocking, [&] {
    store_11<<<1, 1, 0, b.non_blocking>>>(b.device);
    KSYNC_PROBE_REPORT(cudaGetLastError());
  });
  trial("cudaMemcpyAsync pinned on the held stream", b.non_blocking, [&] {
    KSYNC_PROBE_REPORT(cudaMemcpyAsync(b.device, b.pinned, sizeof(int), cudaMemcpyHostToDevice, b.non_blocking));
  });
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "data" && mode != "calls" && mode != "waitevent" && mode != "launch") {
    std::fprintf(stderr, "usage: ksync_host_gate_probe data|calls|waitevent|launch (got \"%s\")\n", mode.c_str());
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("ksync_host_gate_probe: no GPU\n");
    return 77;
  }
  std::printf("[%s] CUDA_MODULE_LOADING=%s CUDA_LAUNCH_BLOCKING=%s\n", mode.c_str(),
              variable_or_unset("CUDA_MODULE_LOADING"), variable_or_unset("CUDA_LAUNCH_BLOCKING"));
  // The context, streams and buffers before any trial: without them no trial means anything.
  buffers b;
  for (const cudaError_t status : {cudaFree(nullptr), cudaStreamCreateWithFlags(&b.non_blocking, cudaStreamNonBlocking),
                                   cudaStreamCreate(&b.blocking), cudaMalloc(&b.device, std::size_t{1} << 20),
                                   cudaHostAlloc(&b.pinned, std::size_t{4} << 20, cudaHostAllocDefault)}) {
    if (status != cudaSuccess) {
      std::fprintf(stderr, "ksync_host_gate_probe: setup failed: %s\n", cudaGetErrorName(status));
      return 1;
    }
  }
  if (mode == "data") probe_data(b);
  if (mode == "calls") probe_calls(b);
  if (mode == "waitevent") probe_wait_event(b);
  if (mode == "launch") probe_launch(b);
  KSYNC_PROBE_REPORT(cudaFreeHost(b.pinned));
  KSYNC_PROBE_REPORT(cudaFree(b.device));
  KSYNC_PROBE_REPORT(cudaStreamDestroy(b.blocking));
  KSYNC_PROBE_REPORT(cudaStreamDestroy(b.non_blocking));
  std::printf("[%s] done\n", mode.c_str());
  return 0;
}
