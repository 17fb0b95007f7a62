#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks ksync's spack recipe against spack's own builtin recipes, read from a local copy of spack-packages.

usage: check_spack_recipe_builtin.py KSYNC_SPACK_REPO [SPACK_PACKAGES]
SPACK_PACKAGES (else the environment's KSYNC_SPACK_PACKAGES) is a directory holding repos/spack_repo/builtin: a
checkout or `git archive` of github.com/spack/spack-packages. Without one the check prints "ksync-skip:" and exits
0 (CTest reports it skipped).

What is spack's code and what is this script's:
- spack's, loaded and executed from the copy: the builtin recipes (kokkos, kokkos-kernels, cuda, nccl, cmake,
  googletest, benchmark, mpi, cxx, openmpi, gcc) and the build-system classes they and ksync derive from
  (build_systems/cmake.py, cuda.py, ...): their class bodies run, so every version(), variant(), depends_on(),
  conflicts() they declare is the builtin one, and ksync's cmake_args() runs through cmake.py's own `define` and
  `define_from_variant`.
- this script's (spack core, absent here): `spack.package` is a shim. Its directives only record their calls
  (with the `when(...)` / `default_args(...)` contexts folded into `when=`); PackageBase attaches what a class
  body recorded to the class and answers `has_variant`, `name` and `self[dep]` (a stub prefix); every other name
  that the recipes import from spack.package is an inert stand-in, enough to import them. Spec strings are
  read, and version ranges evaluated, by a small parser below that follows spack's documented rules (`@a:b`
  admits a and b and every version that b prefixes; `@x` means `@x:x`); spack's concretizer never runs.
"""

import ast
import builtins
import contextlib
import importlib.abc
import importlib.util
import os
import pathlib
import re
import sys
import types

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from spack_recipe_cases import check_cmake_args  # noqa: E402

ksync_repo = pathlib.Path(sys.argv[1])
packages_root = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else os.environ.get("KSYNC_SPACK_PACKAGES", "")
if not packages_root:
    print("ksync-skip: no copy of spack-packages named (KSYNC_SPACK_PACKAGES, a directory holding "
          "repos/spack_repo/builtin); the recipe is not checked against spack's builtin recipes")
    sys.exit(0)
repos = pathlib.Path(packages_root) / "repos"
if not (repos / "spack_repo" / "builtin" / "packages" / "kokkos" / "package.py").is_file():
    sys.exit(f"{packages_root} holds no repos/spack_repo/builtin/packages/kokkos/package.py")

# --- the recorder: spack.package as far as importing and executing the recipes needs it -------------------------
pending = []  # directives of the class body being executed
when_stack, default_stack = [], []


def directive(kind):
    def record(*args, **kwargs):
        merged = {k: v for frame in default_stack for k, v in frame.items()}
        merged.update(kwargs)
        conditions = [*when_stack, merged.pop("when", None) or ""]
        merged["when"] = " ".join(c for c in conditions if c)
        pending.append((kind, args, merged))
    return record


@contextlib.contextmanager
def when(condition):
    when_stack.append(condition)
    yield
    when_stack.pop()


@contextlib.contextmanager
def default_args(**kwargs):
    default_stack.append(kwargs)
    yield
    default_stack.pop()


class Combination(tuple):
    """any_combination_of(...): a multi-valued variant whose values are these or 'none'."""


class Inert:
    """Stands for every name of spack core the recipes import and this check never uses."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]  # used as a decorator
        return Inert()

    def __getattr__(self, name):
        return Inert()

    def __getitem__(self, key):
        return Inert()

    def __or__(self, other):
        return Inert()

    __ror__ = __or__


class Dependency:
    def __init__(self, name):
        self.prefix = f"/spack/opt/{name}"
        self.kokkos_cxx = "/spack/opt/kokkos-nvcc-wrapper/bin/nvcc_wrapper"


class DirectiveMeta(type):
    def __new__(mcs, name, bases, namespace):
        cls = super().__new__(mcs, name, bases, namespace)
        cls.own_directives = list(pending)
        pending.clear()
        cls.versions = {str(args[0]): kwargs for args, kwargs in cls.directives("version")}
        return cls


class PackageBase(metaclass=DirectiveMeta):
    @classmethod
    def directives(cls, kind):
        return [(args, kwargs) for klass in reversed(cls.__mro__) for k, args, kwargs in
                getattr(klass, "own_directives", []) if k == kind and "own_directives" in vars(klass)]

    @classmethod
    def has_variant(cls, name):
        return any(args[0] == name for args, _ in cls.directives("variant"))

    @property
    def name(self):
        return re.sub(r"(?<!^)(?=[A-Z])", "-", type(self).__name__).lower()

    def __getitem__(self, name):
        return Dependency(name)


class BuilderWithDefaults:
    pass


package_module = types.ModuleType("spack.package")
for kind in ("version", "variant", "depends_on", "conflicts", "provides", "requires", "license", "maintainers",
             "patch", "resource", "extends", "build_system", "redistribute", "can_splice"):
    setattr(package_module, kind, directive(kind))
package_module.__dict__.update(
    when=when, default_args=default_args, any_combination_of=lambda *values: Combination(("none",) + values),
    PackageBase=PackageBase, Package=type("Package", (PackageBase,), {}), BuilderWithDefaults=BuilderWithDefaults,
    Builder=BuilderWithDefaults, GenericBuilder=BuilderWithDefaults, InstallError=Exception, SpackError=Exception,
    join_path=os.path.join)
package_module.__getattr__ = lambda name: Inert()
package_module.__all__ = [name for name in vars(package_module) if not name.startswith("_")]
sys.modules["spack"] = types.ModuleType("spack")
sys.modules["spack.package"] = package_module


def free_names(source):
    """Names a recipe reads and never binds: what its `from spack.package import *` must provide."""
    read, bound = set(), set(dir(builtins))
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return read - bound


class RecipeLoader(importlib.abc.Loader):
    def __init__(self, path):
        self.path = path

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        source = self.path.read_text() if self.path else ""
        package_module.__all__ = sorted(set(package_module.__all__) | free_names(source))
        exec(compile(source, str(self.path or module.__name__), "exec"), module.__dict__)


class BuiltinFinder(importlib.abc.MetaPathFinder):
    """Imports spack_repo.builtin.* from the copy (its folders without __init__.py as empty packages)."""

    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] != "spack_repo":
            return None
        base = repos.joinpath(*fullname.split("."))
        if base.is_dir():
            init = base / "__init__.py"
            return importlib.util.spec_from_loader(fullname, RecipeLoader(init if init.is_file() else None),
                                                   is_package=True)
        if base.with_suffix(".py").is_file():
            return importlib.util.spec_from_loader(fullname, RecipeLoader(base.with_suffix(".py")))
        return None


sys.meta_path.insert(0, BuiltinFinder())


def builtin(name):
    """The class of a builtin package, or None where the copy has no such package."""
    module_name = name.replace("-", "_")
    if not (repos / "spack_repo" / "builtin" / "packages" / module_name / "package.py").is_file():
        return None
    module = importlib.import_module(f"spack_repo.builtin.packages.{module_name}.package")
    class_name = "".join(part.capitalize() for part in re.split(r"[-_]", name))
    return getattr(module, class_name)


recipe = ksync_repo / "packages" / "ksync" / "package.py"
loader = RecipeLoader(recipe)
ksync_module = types.ModuleType("spack_repo.ksync.packages.ksync.package")
loader.exec_module(ksync_module)
Ksync = ksync_module.Ksync


# --- spec strings and versions, after spack's documented rules ---------------------------------------------------
INFINITE = ("develop", "main", "master", "head", "trunk", "stable")


def version_key(text):
    key = []
    for part in re.split(r"[._-]", text):
        if part.isdigit():
            key.append((1, int(part), ""))
        elif part in INFINITE:
            key.append((2, len(INFINITE) - INFINITE.index(part), ""))
        else:
            key.append((0, 0, part))
    return tuple(key)


def in_range(version, ranges):
    """version (a string) against a spack version list such as '4.6:5', ':4', '12.8:', '2.0.0:,=1.0'."""
    v = version_key(version)
    for item in ranges.split(","):
        if item.startswith("="):
            if v == version_key(item[1:]):
                return True
            continue
        low, colon, high = item.partition(":")
        high = high if colon else low
        if (not low or v >= version_key(low)) and (not high or v <= version_key(high)
                                                  or v[:len(version_key(high))] == version_key(high)):
            return True
    return False


class Constraint:
    """One node of a spec string: name, version list, variants; ^ and % parts as further constraints."""

    def __init__(self, name=""):
        self.name, self.versions, self.variants, self.deps = name, "", {}, []


def parse(text):
    root = current = Constraint()
    for token in re.findall(r"[\^%]|@=?[\w.:,=-]+|[+~][\w-]+|[\w-]+=[\w.,-]+|[\w.-]+", text):
        if token in "^%":
            current = Constraint()
            root.deps.append(current)
        elif token[0] == "@":
            current.versions = token[1:]
        elif token[0] in "+~":
            current.variants[token[1:]] = token[0] == "+"
        elif "=" in token:
            key, _, value = token.partition("=")
            current.variants[key] = value
        else:
            current.name = token
    return root


def releases(cls):
    """The versions a recipe lists that are releases (not branches such as develop)."""
    return [str(args[0]) for args, kwargs in cls.directives("version")
            if not {"branch", "tag", "commit"} & kwargs.keys() and version_key(str(args[0]))[0][0] != 2]


def accepts(values, value):
    if values is None:
        return isinstance(value, bool)
    if callable(values):
        return values(value)
    return value in values or all(v in values for v in str(value).split(","))


def versions_with_variant(cls, name, value, wanted, versions):
    """The versions among `versions` for which cls declares variant `name` accepting `value` under the
    constraint `wanted` (the dependency's own variants asked in the same spec; ^/% parts are not evaluated)."""
    found = []
    for version in versions:
        for args, kwargs in cls.directives("variant"):
            if args[0] != name or not accepts(kwargs.get("values"), value):
                continue
            condition = parse(kwargs["when"])
            if condition.versions and not in_range(version, condition.versions):
                continue
            if all(wanted.get(k, None) in (None, v) for k, v in condition.variants.items()
                   if k != "build_system"):
                found.append(version)
                break
    return found


# --- the checks --------------------------------------------------------------------------------------------------
problems, notes = [], []
packages, unreadable = {}, set()


def package(name):
    if name not in packages:
        try:
            packages[name] = builtin(name)
        except Exception as error:  # noqa: BLE001 - a recipe this shim cannot execute is a finding, not a crash
            problems.append(f"could not execute the builtin recipe of '{name}': {error!r}")
            unreadable.add(name)
            packages[name] = None
    return packages[name]


def own(cls, kind):
    """What the class body of cls itself declares (not what it inherits from CMakePackage or CudaPackage)."""
    return [(args, kwargs) for k, args, kwargs in cls.own_directives if k == kind]


ksync_deps = own(Ksync, "depends_on")
# Unconditional version constraints hold for every other dependency on the same package.
global_ranges = {}
for args, kwargs in ksync_deps:
    spec = parse(args[0])
    if spec.versions and not kwargs["when"]:
        global_ranges[spec.name] = spec.versions

providers = {"mpi": ("openmpi", "mpich"), "cxx": ("gcc", "llvm")}
checked_ranges = set()
for args, kwargs in ksync_deps:
    text, condition = args[0], kwargs["when"]
    spec = parse(text)
    cls = package(spec.name)
    where = f"depends_on('{text}'" + (f", when='{condition}')" if condition else ")")
    if cls is None:
        if spec.name not in unreadable:
            problems.append(f"{where}: the builtin repository has no package '{spec.name}'")
        continue
    if getattr(cls, "virtual", False):
        named = [p for p in providers.get(spec.name, ()) if package(p) is not None and any(
            parse(a[0]).name == spec.name for a, _ in package(p).directives("provides"))]
        if not named:
            problems.append(f"{where}: '{spec.name}' is virtual and no builtin provider checked provides it")
        elif text not in checked_ranges:
            checked_ranges.add(text)
            print(f"{text}: virtual, provided by builtin {', '.join(named)}")
        continue
    listed = releases(cls)
    admitted = listed
    for ranges in (global_ranges.get(spec.name), spec.versions):
        if ranges:
            admitted = [v for v in admitted if in_range(v, ranges)]
    for dep in parse(condition).deps:  # a when clause such as '+cuda ^kokkos@:4'
        if dep.name == spec.name and dep.versions:
            admitted = [v for v in admitted if in_range(v, dep.versions)]
    if spec.versions:
        every = [str(a[0]) for a, _ in cls.directives("version")]
        if not admitted:
            problems.append(f"{where}: admits none of the versions the builtin '{spec.name}' lists")
        for item in spec.versions.split(","):
            for bound in (b for b in item.lstrip("=").split(":") if b):
                if not any(version_key(v)[:len(version_key(bound))] == version_key(bound) for v in listed):
                    problems.append(f"{where}: bound '{bound}' names no release of the builtin '{spec.name}'")
        branches = [v for v in every if in_range(v, spec.versions) and v not in listed]
        if branches and spec.versions.rstrip(",").endswith(":"):
            notes.append(f"{where}: open above, so it admits the builtin branch versions {', '.join(branches)}")
        elif branches:
            problems.append(f"{where}: admits builtin versions that are no releases: {', '.join(branches)}")
        if text not in checked_ranges:
            checked_ranges.add(text)
            ordered = sorted(admitted, key=version_key)
            print(f"{text}: admits {len(admitted)} builtin releases, {ordered[0]} to {ordered[-1]}"
                  if admitted else f"{text}: admits no builtin release")
    for name, value in spec.variants.items():
        having = versions_with_variant(cls, name, value, spec.variants, admitted)
        if not having:
            problems.append(f"{where}: the builtin '{spec.name}' has no variant {name}={value} for any release "
                            "ksync admits")
        elif having != admitted:
            missing = [v for v in admitted if v not in having]
            problems.append(f"{where}: the builtin '{spec.name}' declares variant '{name}' only for some admitted "
                            f"versions; not for {', '.join(missing)}")

# Each builtin kokkos-kernels release pins its kokkos (depends_on("kokkos@V", when="@V")): the kokkos-kernels
# releases ksync admits must pin a kokkos that ksync admits too.
KokkosKernels = package("kokkos-kernels")
if KokkosKernels is not None and any(parse(a[0]).name == "kokkos-kernels" for a, _ in ksync_deps):
    kk_range = next(parse(a[0]).versions for a, _ in ksync_deps if parse(a[0]).name == "kokkos-kernels")
    for version in (v for v in releases(KokkosKernels) if in_range(v, kk_range)):
        pins = [parse(a[0]).versions for a, kw in KokkosKernels.directives("depends_on")
                if parse(a[0]).name == "kokkos" and parse(a[0]).versions and in_range(version, parse(kw["when"]).versions or "=none")]
        if not pins or not all(in_range(pin.lstrip("="), global_ranges.get("kokkos", ":")) for pin in pins):
            problems.append(f"kokkos-kernels@{version} (admitted by ksync) pins kokkos@{','.join(pins) or '?'}, "
                            f"outside ksync's kokkos@{global_ranges.get('kokkos')}")
    print(f"kokkos-kernels@{kk_range}: each admitted release pins a kokkos release that kokkos@"
          f"{global_ranges.get('kokkos')} admits")

# ksync's own conditions name its own variants (its own, and those of the real CMakePackage and CudaPackage).
ksync_variants = {args[0]: kwargs for args, kwargs in Ksync.directives("variant")}
for kind in ("depends_on", "conflicts"):
    for args, kwargs in own(Ksync, kind):
        texts = [kwargs["when"]] + ([args[0]] if kind == "conflicts" else [])
        for text in texts:
            for name, value in parse(text).variants.items():
                declared = ksync_variants.get(name)
                if declared is None and name != "build_system":
                    problems.append(f"{kind}('{args[0]}', when='{kwargs['when']}'): ksync has no variant '{name}'")
                elif declared is not None and not accepts(declared.get("values"), value):
                    problems.append(f"{kind}('{args[0]}', when='{kwargs['when']}'): '{value}' is no value of "
                                    f"ksync's variant '{name}'")

# The Kokkos variants README tells users to ask for (^kokkos+wrapper, ^kokkos+cmake_lang), for the versions
# ksync admits, and the property the recipe reads from Kokkos.
Kokkos = package("kokkos")
readme = ksync_repo.parents[2] / "README.md"
kokkos_admitted = [v for v in releases(Kokkos) if in_range(v, global_ranges.get("kokkos", ":"))] if Kokkos else []
if Kokkos is not None:
    for name in sorted(set(re.findall(r"\^kokkos\+(\w+)", readme.read_text() if readme.is_file() else ""))):
        if versions_with_variant(Kokkos, name, True, {"cuda": True}, kokkos_admitted) != kokkos_admitted:
            problems.append(f"README.md names ^kokkos+{name}: the builtin kokkos lacks it for some of ksync's range")
        else:
            print(f"kokkos+{name} (README.md): declared by the builtin kokkos for every admitted release")
    if not isinstance(vars(Kokkos).get("kokkos_cxx"), property):
        problems.append("the recipe reads kokkos_cxx from Kokkos; the builtin Kokkos has no such property")
    # ksync passes its cuda_arch to Kokkos, which takes one value of its own list.
    kokkos_arch = [kw for a, kw in Kokkos.directives("variant") if a[0] == "cuda_arch"][-1]
    passed = [parse(a[0]).variants["cuda_arch"] for a, _ in ksync_deps if "cuda_arch" in parse(a[0]).variants]
    refused = [a for a in passed if not accepts(kokkos_arch["values"], a)]
    if refused:
        problems.append(f"kokkos cuda_arch={', '.join(refused)}: not values of the builtin kokkos' cuda_arch")
    unbuilt = [a for a in passed if a not in Kokkos.spack_cuda_arch_map]
    print(f"cuda_arch: ksync passes {len(passed)} values of the builtin CudaPackage to kokkos, all accepted by its "
          f"cuda_arch variant; kokkos' cmake_args maps {len(passed) - len(unbuilt)} of them to a Kokkos_ARCH "
          f"(not: {', '.join(unbuilt)})")
    # README and the recipe say CUDA 13 needs Kokkos 4.7.01: the builtin kokkos should say so too.
    if not any(parse(a[0]).deps and parse(a[0]).deps[0].name == "cuda" and in_range("13.0", parse(a[0]).deps[0].versions)
               and in_range("4.7.00", parse(kw["when"]).versions) and not in_range("4.7.01", parse(kw["when"]).versions)
               for a, kw in Kokkos.directives("conflicts") if kw["when"]):
        notes.append("the builtin kokkos has no conflict of ^cuda@13 with kokkos@:4.7.00 (the recipe's comment "
                     "says CUDA 13 needs Kokkos 4.7.01)")


class Variant:
    def __init__(self, value):
        self.value = value


class Spec:
    """A concrete ksync spec: each variant whose when clause holds, at its default unless the text sets it."""

    def __init__(self, text):
        asked = parse(text).variants
        self.variants = {}
        for _ in range(2):  # twice: a when clause may read a variant set in the first pass (cuda_arch: +cuda)
            for name, kwargs in ksync_variants.items():
                condition = parse(kwargs["when"]).variants
                if all(self.value(k) in (None, v) for k, v in condition.items() if k != "build_system"):
                    default = kwargs.get("default")
                    if isinstance(kwargs.get("values"), Combination):
                        value = tuple(str(asked[name]).split(",")) if name in asked else (default or "none",)
                    else:
                        value = asked.get(name, default)
                    self.variants[name] = Variant(value)
                else:
                    self.variants.pop(name, None)

    def value(self, name):
        variant = self.variants.get(name)
        return None if variant is None else variant.value

    def satisfies(self, text):
        return all(self.value(k) == v for k, v in parse(text).variants.items())

    def __getitem__(self, name):
        return Dependency(name)


cmake_module = sys.modules["spack_repo.builtin.build_systems.cmake"]
if Ksync.define is not cmake_module.CMakePackage.define:
    problems.append("ksync's define is not the builtin CMakePackage's")
check_cmake_args(Ksync, Spec, problems, " (builtin cmake.py define/define_from_variant)")

for note in notes:
    print(f"note: {note}")
if problems:
    sys.exit("spack recipe check against the builtin repository failed:\n  " + "\n  ".join(problems))
print(f"spack recipe OK against the builtin repository at {packages_root}: {len(ksync_deps)} dependencies, "
      f"{len(own(Ksync, 'conflicts'))} conflicts, {len(ksync_variants)} variants checked")
