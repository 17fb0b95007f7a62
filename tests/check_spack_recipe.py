#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks ksync's spack recipe without spack: the file parses, and, executed against stand-ins for spack's
modules that format CMake arguments as spack does (`define`: -DNAME:BOOL=ON for booleans, -DNAME:STRING=...
otherwise, lists joined by ';'; `define_from_variant`: the variant's value, multi-valued ones sorted), it
declares the variants, dependencies and conflicts the README promises and computes the CMake arguments
below for three specs (printed, for the record). usage: check_spack_recipe.py SPACK_REPO_DIR"""

import os
import pathlib
import sys
import types

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from spack_recipe_cases import check_cmake_args  # noqa: E402

repo = pathlib.Path(sys.argv[1])
recipe = repo / "packages" / "ksync" / "package.py"
repo_yaml = (repo / "repo.yaml").read_text()
if "api: v2.0" not in repo_yaml or "namespace: ksync" not in repo_yaml:
    sys.exit(f"{repo}/repo.yaml must declare namespace ksync and api v2.0")

declared = {"variant": [], "depends_on": [], "conflicts": [], "version": [], "license": []}


def recorder(kind):
    def record(*args, **kwargs):
        declared[kind].append((args, kwargs))
    return record


class Variant:
    def __init__(self, value):
        self.value = value


class Dependency:
    def __init__(self, name):
        self.prefix = f"/spack/opt/{name}"
        self.kokkos_cxx = "/spack/opt/kokkos-nvcc-wrapper/bin/nvcc_wrapper"


class Spec:
    """The variants of one concrete spec: booleans, and cuda_arch as spack holds it (a tuple of values)."""

    def __init__(self, text):
        self.variants = {"cuda_arch": Variant(("none",))}
        for name, _ in [(args[0], kwargs) for args, kwargs in declared["variant"]]:
            self.variants[name] = Variant(False)
        self.variants["native"] = Variant(True)  # the recipe's default
        self.variants["cuda"] = Variant(False)
        for token in text.split():
            if token.startswith("cuda_arch="):
                self.variants["cuda_arch"] = Variant(tuple(token.partition("=")[2].split(",")))
            else:
                self.variants[token[1:]] = Variant(token[0] == "+")

    def satisfies(self, constraint):
        for token in constraint.split():
            if token.startswith("cuda_arch="):
                if self.variants["cuda_arch"].value != (token.partition("=")[2],):
                    return False
            elif self.variants[token[1:]].value != (token[0] == "+"):
                return False
        return True

    def __getitem__(self, name):
        return Dependency(name)


def define(name, value):
    """spack's CMakeBuilder.define."""
    if isinstance(value, bool):
        return f"-D{name}:BOOL={'ON' if value else 'OFF'}"
    if isinstance(value, (list, tuple)):
        value = ";".join(str(v) for v in value)
    return f"-D{name}:STRING={value}"


class CMakePackage:
    def define(self, name, value):
        return define(name, value)

    def define_from_variant(self, name, variant):
        value = self.spec.variants[variant].value
        return define(name, sorted(value) if isinstance(value, tuple) else value)

    def __getitem__(self, name):
        return Dependency(name)


class CudaPackage:
    cuda_arch_values = ("70", "80", "90")


package_module = types.ModuleType("spack.package")
for kind in declared:
    setattr(package_module, kind, recorder(kind))
package_module.join_path = os.path.join
package_module.run_after = lambda *args, **kwargs: (lambda function: function)
for name in ("which", "working_dir", "cache_extra_test_sources"):
    setattr(package_module, name, lambda *args, **kwargs: None)
package_module.__all__ = [*declared, "join_path", "run_after", "which", "working_dir", "cache_extra_test_sources"]
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
text = recipe.read_text()
exec(compile(text, str(recipe), "exec"), namespace)
Ksync = namespace["Ksync"]
problems = []
for invented in ("homepage", "url =", "git =", "https://"):
    if invented in text.split('"""', 2)[2]:  # the code after the module docstring
        problems.append(f"the recipe names a download or home ('{invented}'): ksync has none yet")
if not issubclass(Ksync, CudaPackage):
    problems.append("Ksync must derive from CudaPackage (variants cuda, cuda_arch)")
variants = {args[0] for args, _ in declared["variant"]}
for wanted in ("native", "mpi", "nccl", "shared", "tests", "benchmarks", "kokkos_kernels"):
    if wanted not in variants:
        problems.append(f"missing variant '{wanted}'")
deps = [(args[0], kwargs.get("when", "")) for args, kwargs in declared["depends_on"]]
for spec, when in [("kokkos@4.6:5", ""), ("kokkos+cuda", "+cuda"),
                   ("kokkos+cuda_lambda", "+cuda ^kokkos@:4"), ("kokkos cuda_arch=90", "+cuda cuda_arch=90"),
                   ("cuda@12.8:", "+cuda"), ("mpi", "+mpi"), ("nccl", "+nccl"),
                   ("kokkos-kernels@4.6:5", "+kokkos_kernels"), ("googletest@1.11:", "+tests"),
                   ("benchmark@1.8:", "+benchmarks")]:
    if (spec, when) not in deps:
        problems.append(f"missing depends_on('{spec}', when='{when}')")
conflicts = [(args[0], kwargs.get("when", "")) for args, kwargs in declared["conflicts"]]
for spec, when in [("+native", "~cuda"), ("+nccl", "~native"), ("+cuda", "cuda_arch=none")]:
    if (spec, when) not in conflicts:
        problems.append(f"missing conflicts('{spec}', when='{when}')")
if not callable(getattr(Ksync, "test_consumer", None)):
    problems.append("no spack test hook (test_consumer)")

check_cmake_args(Ksync, Spec, problems, "")

if problems:
    sys.exit("spack recipe check failed:\n  " + "\n  ".join(problems))
print(f"spack recipe OK: variants {sorted(variants)}, {len(deps)} dependencies, {len(conflicts)} conflicts")
