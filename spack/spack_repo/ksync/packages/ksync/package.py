# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Spack recipe for ksync (spack >= 1.0, package API v2.0).

ksync has no public release or repository yet, so the recipe names no download: it builds a local checkout,
`spack develop --path /path/to/ksync ksync@main` in an environment (or `spack dev-build`), as README.md says.
"""

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage

from spack.package import *


class Ksync(CMakePackage, CudaPackage):
    """GPU synchronization and concurrency patterns, each written twice -- portable Kokkos and
    hand-written CUDA -- with benchmarks that compare them on the same GPU."""

    license("Apache-2.0 WITH LLVM-exception")

    version("main")  # a local checkout (spack develop / dev-build): there is nothing to fetch

    variant("native", default=True, description="Build the hand-written CUDA half (ksync::cuda_native)")
    variant("mpi", default=False, description="Build ksync::mpi (and ksync::cuda_mpi with +native)")
    variant("nccl", default=False, description="Use NCCL between GPUs in the native half")
    variant("shared", default=False, description="Build ksync::cuda_native as a shared library")
    variant("tests", default=False, description="Build the GoogleTest suite (run by spack install --test)")
    variant("benchmarks", default=False, description="Build the Google Benchmark suites")
    variant("kokkos_kernels", default=False, description="Use Kokkos Kernels for benchmark baselines")

    depends_on("cxx", type="build")
    depends_on("cmake@3.25:", type="build")
    # CMake 3.25 cannot compile CUDA 13 as C++20 (cuda_std_20 is missing); 3.31 and 4.4 are known to work.
    depends_on("cmake@3.31:", type="build", when="+cuda")
    depends_on("kokkos@4.6:5")
    # Kokkos carries the backend: a CUDA build of ksync needs Kokkos built for the same GPU, with device
    # lambdas (ksync's kernels are lambdas and functors). Kokkos 5 always has them: the builtin kokkos
    # declares cuda_lambda only @:4, so asking for it unconditionally would rule Kokkos 5 out.
    depends_on("kokkos+cuda", when="+cuda")
    depends_on("kokkos+cuda_lambda", when="+cuda ^kokkos@:4")
    depends_on("kokkos~cuda", when="~cuda")
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={arch}", when=f"+cuda cuda_arch={arch}")
    depends_on("cuda@12.8:", when="+cuda")  # cudaStreamGetDevice; CUDA 13 needs Kokkos 4.7.01 or later
    depends_on("mpi", when="+mpi")
    depends_on("nccl", when="+nccl")
    depends_on("kokkos-kernels@4.6:5", when="+kokkos_kernels")
    depends_on("googletest@1.11:", when="+tests")
    depends_on("benchmark@1.8:", when="+benchmarks")

    conflicts("+native", when="~cuda", msg="the native half is CUDA code: enable +cuda (and set cuda_arch)")
    conflicts("+nccl", when="~native", msg="NCCL is used by the native half: enable +native")
    conflicts("+shared", when="~native", msg="+shared is about ksync::cuda_native; the portable half is header-only")
    conflicts("+cuda", when="cuda_arch=none", msg="set cuda_arch, e.g. cuda_arch=90 for H100/H200")

    def cmake_args(self):
        spec = self.spec
        on_off = lambda variant: "ON" if spec.satisfies(f"+{variant}") else "OFF"  # noqa: E731
        args = [
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define_from_variant("KSYNC_ENABLE_CUDA_NATIVE", "native"),
            # ksync's AUTO|ON|OFF switches, set explicitly: nothing is picked up because it happens to be there.
            self.define("KSYNC_MPI", on_off("mpi")),
            self.define("KSYNC_NCCL", on_off("nccl")),
            self.define("KSYNC_KOKKOS_KERNELS", on_off("kokkos_kernels")),
            self.define_from_variant("BUILD_SHARED_LIBS", "shared"),
            self.define_from_variant("KSYNC_ENABLE_TESTS", "tests"),
            self.define_from_variant("KSYNC_ENABLE_BENCHMARKS", "benchmarks"),
        ]
        if spec.satisfies("+cuda"):
            # Kokkos compiles CUDA either through nvcc_wrapper (kokkos+wrapper) or as a CMake language
            # (kokkos+cmake_lang); kokkos_cxx is the C++ compiler for either, as ArborX's recipe uses it.
            args.append(self.define("CMAKE_CXX_COMPILER", self["kokkos"].kokkos_cxx))
            args.append(self.define("CMAKE_CUDA_ARCHITECTURES", spec.variants["cuda_arch"].value))
        return args

    # spack test run ksync: the downstream project of tests/consumer, built against the installed ksync with
    # the components this spec has, and run.
    consumer_dir = join_path("tests", "consumer")

    @run_after("install")
    def cache_consumer_sources(self):
        cache_extra_test_sources(self, [self.consumer_dir])

    def test_consumer(self):
        """build tests/consumer against the installed ksync and run it"""
        spec = self.spec
        components = [name for name, variant in (("cuda_native", "native"), ("mpi", "mpi"))
                      if spec.satisfies(f"+{variant}")]
        source = join_path(self.test_suite.current_test_cache_dir, self.consumer_dir)
        cmake = which(spec["cmake"].prefix.bin.cmake)
        arguments = [source, "-B", "build", self.define("CMAKE_PREFIX_PATH", [self.prefix, spec["kokkos"].prefix]),
                     self.define("CONSUMER_COMPONENTS", components)]
        if spec.satisfies("+cuda"):
            arguments.append(self.define("CMAKE_CXX_COMPILER", self["kokkos"].kokkos_cxx))
            arguments.append(self.define("CMAKE_CUDA_ARCHITECTURES", spec.variants["cuda_arch"].value))
        with working_dir(source):
            cmake(*arguments)
            cmake("--build", "build")
            consumer = which(join_path(source, "build", "consumer"))
            consumer()
