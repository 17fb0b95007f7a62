# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The specs both spack recipe checks (check_spack_recipe.py against stand-ins, check_spack_recipe_builtin.py
against spack's builtin recipes) run ksync's cmake_args() for, and the arguments each must give. The
dependency prefixes are the checks' stubs."""

KOKKOS = "-DKokkos_ROOT:STRING=/spack/opt/kokkos"
WRAPPER = "-DCMAKE_CXX_COMPILER:STRING=/spack/opt/kokkos-nvcc-wrapper/bin/nvcc_wrapper"


def _args(native, mpi_and_nccl, shared, arch=None):
    args = [KOKKOS, f"-DKSYNC_ENABLE_CUDA_NATIVE:BOOL={native}", f"-DKSYNC_MPI:STRING={mpi_and_nccl}",
            f"-DKSYNC_NCCL:STRING={mpi_and_nccl}", "-DKSYNC_KOKKOS_KERNELS:STRING=OFF", f"-DBUILD_SHARED_LIBS:BOOL={shared}",
            "-DKSYNC_ENABLE_TESTS:BOOL=OFF", "-DKSYNC_ENABLE_BENCHMARKS:BOOL=OFF"]
    return args + ([WRAPPER, f"-DCMAKE_CUDA_ARCHITECTURES:STRING={arch}"] if arch else [])


EXPECTED_CMAKE_ARGS = {
    "~cuda ~native": _args("OFF", "OFF", "OFF"),
    "+cuda cuda_arch=80": _args("ON", "OFF", "OFF", 80),
    "+cuda cuda_arch=90 +mpi +nccl +shared": _args("ON", "ON", "ON", 90),
}


def check_cmake_args(package_class, make_spec, problems, how=""):
    """Prints package_class().cmake_args() for each spec above (`how`: what made them) and adds a line to
    `problems` for each that differs from its expected list."""
    for spec_text, wanted in EXPECTED_CMAKE_ARGS.items():
        package = package_class()
        package.spec = make_spec(spec_text)
        args = package.cmake_args()
        print(f"ksync {spec_text}: cmake_args{how} =\n  " + "\n  ".join(args))
        if args != wanted:
            problems.append(f"cmake_args() for '{spec_text}' is {args}, expected {wanted}")
