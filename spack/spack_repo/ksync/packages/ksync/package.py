# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Spack recipe for ksync (spack >= 1.0 package API v2.0)."""

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage

from spack.package import *


class Ksync(CMakePackage, CudaPackage):
    """GPU synchronization and concurrency patterns, each written twice -- portable Kokkos and
    hand-written CUDA -- with benchmarks that compare them on the same GPU."""

    homepage = "https://github.com/ksync/ksync"
    git = "https://github.com/ksync/ksync.git"
    license("Apache-2.0 WITH LLVM-exception")

    version("main", branch="main")

    variant("native", default=True, description="Build the hand-written CUDA module (ksync::cuda_native)")
    variant("kokkos_kernels", default=False, description="Use Kokkos Kernels for benchmark baselines")
    variant("tests", default=False, description="Build the GoogleTest suite")
    variant("benchmarks", default=False, description="Build the Google Benchmark suites")

    depends_on("cxx", type="build")
    depends_on("cmake@3.25:", type="build")
    depends_on("kokkos@4.6:5")
    # Kokkos carries the backend: a CUDA build of ksync needs Kokkos built for the same GPU.
    depends_on("kokkos+cuda", when="+cuda")
    depends_on("kokkos~cuda", when="~cuda")
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={arch}", when=f"+cuda cuda_arch={arch}")
    depends_on("kokkos-kernels@4.6:5", when="+kokkos_kernels")
    depends_on("googletest", when="+tests")
    depends_on("benchmark", when="+benchmarks")

    conflicts("+native", when="~cuda", msg="the native module is CUDA code: enable +cuda (and set cuda_arch)")
    conflicts("+cuda", when="cuda_arch=none", msg="set cuda_arch, e.g. cuda_arch=90 for H100/H200")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("KSYNC_ENABLE_CUDA_NATIVE", "native"),
            self.define("KSYNC_KOKKOS_KERNELS", "ON" if spec.satisfies("+kokkos_kernels") else "OFF"),
            self.define_from_variant("KSYNC_ENABLE_TESTS", "tests"),
            self.define_from_variant("KSYNC_ENABLE_BENCHMARKS", "benchmarks"),
        ]
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CUDA_ARCHITECTURES", spec.variants["cuda_arch"].value))
        return args
