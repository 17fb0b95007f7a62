#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks ksync's spack recipe without spack: the file parses, and executed against stand-ins for spack's
modules it declares the variants, dependencies and CMake arguments the README promises."""

import pathlib
import sys
import types

repo = pathlib.Path(sys.argv[1])
recipe = repo / "packages" / "ksync" / "package.py"
if "api: v2.0" not in (repo / "repo.yaml").read_text() or "namespace: ksync" not in (repo / "repo.yaml").read_text():
    sys.exit(f"{repo}/repo.yaml must declare namespace ksync and api v2.0")

declared = {"variant": [], "depends_on": [], "conflicts": [], "version": [], "license": []}


def recorder(kind):
    def record(*args, **kwargs):
        declared[kind].append((args, kwargs))
    return record


class Variant:
    def __init__(self, value):
        self.value = value


class Spec:
    def __init__(self, enabled, cuda_arch):
        self.enabled, self.variants = set(enabled), {"cuda_arch": Variant(cuda_arch)}

    def satisfies(self, constraint):
        return constraint.lstrip("+") in self.enabled


class CMakePackage:
    def define(self, name, value):
        return f"-D{name}={'ON' if value is True else 'OFF' if value is False else value}"

    def define_from_variant(self, name, variant):
        return self.define(name, variant in self.spec.enabled)


class CudaPackage:
    cuda_arch_values = ("80", "90")


package_module = types.ModuleType("spack.package")
for kind in declared:
    setattr(package_module, kind, recorder(kind))
package_module.__all__ = list(declared)
cmake_module = types.ModuleType("spack_repo.builtin.build_systems.cmake")
cmake_module.CMakePackage = CMakePackage
cuda_module = types.ModuleType("spack_repo.builtin.build_systems.cuda")
cuda_module.CudaPackage = CudaPackage
for name, module in {"spack": types.ModuleType("spack"), "spack.package": package_module,
                     "spack_repo": types.ModuleType("spack_repo"),
                     "spack_repo.builtin": types.ModuleType("spack_repo.builtin"),
                     "spack_repo.builtin.build_systems": types.ModuleType("spack_repo.builtin.build_systems"),
                     "spack_repo.builtin.build_systems.cmake": cmake_module,
                     "spack_repo.builtin.build_systems.cuda": cuda_module}.items():
    sys.modules[name] = module

namespace = {}
exec(compile(recipe.read_text(), str(recipe), "exec"), namespace)
Ksync = namespace["Ksync"]
problems = []
if not issubclass(Ksync, CudaPackage):
    problems.append("Ksync must derive from CudaPackage (variants cuda, cuda_arch)")
variants = {args[0] for args, _ in declared["variant"]}
for wanted in ("native", "kokkos_kernels"):
    if wanted not in variants:
        problems.append(f"missing variant '{wanted}'")
deps = [(args[0], kwargs.get("when", "")) for args, kwargs in declared["depends_on"]]
for spec, when in [("kokkos@4.6:5", ""), ("kokkos+cuda", "+cuda"), ("kokkos cuda_arch=90", "+cuda cuda_arch=90"),
                   ("kokkos-kernels@4.6:5", "+kokkos_kernels")]:
    if (spec, when) not in deps:
        problems.append(f"missing depends_on('{spec}', when='{when}')")

package = Ksync()
package.spec = Spec({"cuda", "native", "kokkos_kernels"}, "90")
args = package.cmake_args()
for wanted in ("-DKSYNC_ENABLE_CUDA_NATIVE=ON", "-DKSYNC_KOKKOS_KERNELS=ON", "-DCMAKE_CUDA_ARCHITECTURES=90"):
    if wanted not in args:
        problems.append(f"cmake_args() for +cuda+native+kokkos_kernels cuda_arch=90 lacks {wanted}: {args}")

if problems:
    sys.exit("spack recipe check failed:\n  " + "\n  ".join(problems))
print(f"spack recipe OK: variants {sorted(variants)}, {len(deps)} dependencies, cmake_args {args}")
