// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Why Kokkos' RangePolicy maps an index functor slower than ksync on a GPU: a probe run by hand under Nsight
// Compute and read with cuobjdump (docs/index-functors.md, "Where the time goes"). It launches the same functor,
// BabelStream's float Copy c(i) = a(i) over Views (or Triad a(i) = b(i) + s c(i)), four ways:
//   kokkos          Kokkos::parallel_for over RangePolicy(0, n): what Kokkos code writes
//   hand_written    a plain CUDA kernel, one index per thread, blocks of 256, calling the same functor
//   batched         ksync::parallel_for with index_strategy::batched (Kokkos alone: RangePolicy over n / 4)
//   automatic       ksync::parallel_for with no strategy (the native block_batched through the bridge)
// each `repeats` times in that order, and prints the median µs a call of each (instance fenced around each
// call). Every kernel's demangled name holds the functor's (CopyAtIndex, TriadAtIndex), the View fills' do
// not, so `ncu --kernel-name-base demangled -k regex:AtIndex` catches exactly these launches
// (docs/results/2026-12-07-h100-68fb495 has the whole command).
//
//   ksync_range_policy_probe [n = 2^26] [repeats = 5] [copy|triad]
#include <ksync/parallel_for.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace {

struct CopyAtIndex {
  Kokkos::View<float*> a, c;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { c(i) = a(i); }
};

struct TriadAtIndex {
  Kokkos::View<float*> a, b, c;
  float s;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { a(i) = b(i) + s * c(i); }
};

#if defined(KOKKOS_ENABLE_CUDA)
template <class F>
__global__ void hand_written_one_per_thread(F f, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}
#endif

using Exec = Kokkos::DefaultExecutionSpace;

// argv[index] as an integer, or `fallback` where it is absent; std::invalid_argument naming it otherwise.
std::int64_t argument(int argc, char* argv[], int index, const char* name, std::int64_t fallback) {
  if (argc <= index) return fallback;
  const std::string text = argv[index];
  std::size_t used = 0;
  std::int64_t value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw std::invalid_argument(std::string(name) + " = " + text + " is not an integer");
  return value;
}

// The median of `repeats` calls of `launch`, µs, each timed from before its launch to the instance's fence.
template <class Launch>
double median_us(const Exec& exec, int repeats, const Launch& launch) {
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    exec.fence("ksync::bench::range_policy_probe::before");
    const auto start = std::chrono::steady_clock::now();
    launch();
    exec.fence("ksync::bench::range_policy_probe::after");
    times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::ranges::sort(times);
  return times[times.size() / 2];
}

template <class F>
void probe(const Exec& exec, const F& f, std::int64_t n, int repeats, double bytes) {
  const auto report = [&](std::string_view way, double us) {
    std::printf("%-14s %10.2f us  %8.1f GB/s\n", std::string(way).c_str(), us, bytes / us * 1e-3);
  };
  report("kokkos", median_us(exec, repeats, [&] {
           Kokkos::parallel_for("ksync::bench::range_policy_probe::kokkos", Kokkos::RangePolicy<Exec>(exec, 0, n), f);
         }));
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    report(
        "hand_written", median_us(exec, repeats, [&] {
          constexpr int block = 256;
          constexpr int launch_line = __LINE__ + 1;
          hand_written_one_per_thread<<<static_cast<unsigned>((n + block - 1) / block), block, 0, exec.cuda_stream()>>>(
              f, n);
          if (const cudaError_t status = cudaGetLastError(); status != cudaSuccess)
            throw std::runtime_error(std::string("hand_written_one_per_thread<<<...>>> (" __FILE__ ":") +
                                     std::to_string(launch_line) + "): " + cudaGetErrorString(status));
        }));
  }
#endif
  report("batched", median_us(exec, repeats, [&] { ksync::parallel_for(exec, n, f, ksync::index_strategy::batched); }));
  report("automatic", median_us(exec, repeats, [&] { ksync::parallel_for(exec, n, f); }));
}

}  // namespace

int main(int argc, char* argv[]) {
  const Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    const std::int64_t n = argument(argc, argv, 1, "n", std::int64_t{1} << 26);
    const std::int64_t repeats_asked = argument(argc, argv, 2, "repeats", 5);
    const std::string kernel = argc > 3 ? argv[3] : "copy";
    if (n < 1) throw std::invalid_argument("n = " + std::to_string(n) + " must be at least 1");
    if (repeats_asked < 1 || repeats_asked > 1000)
      throw std::invalid_argument("repeats = " + std::to_string(repeats_asked) + " must be in [1, 1000]");
    const int repeats = static_cast<int>(repeats_asked);
    const Exec exec;
    const Kokkos::View<float*> a("ksync::bench::range_policy_probe::a", n);
    const Kokkos::View<float*> b("ksync::bench::range_policy_probe::b", n);
    const Kokkos::View<float*> c("ksync::bench::range_policy_probe::c", n);
    Kokkos::deep_copy(exec, a, 1.0F);
    Kokkos::deep_copy(exec, b, 2.0F);
    Kokkos::deep_copy(exec, c, 3.0F);
    const double element_bytes = static_cast<double>(sizeof(float)) * static_cast<double>(n);
    std::printf("%s, n = %lld, %s, median of %d\n", kernel.c_str(), static_cast<long long>(n), Exec::name(), repeats);
    if (kernel == "copy") {
      probe(exec, CopyAtIndex{a, c}, n, repeats, 2 * element_bytes);
    } else if (kernel == "triad") {
      probe(exec, TriadAtIndex{a, b, c, 0.5F}, n, repeats, 3 * element_bytes);
    } else {
      throw std::invalid_argument("kernel = " + kernel + " is neither copy nor triad");
    }
    exec.fence("ksync::bench::range_policy_probe::done");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ksync_range_policy_probe: %s\n", error.what());
    return 1;
  }
  return 0;
}
