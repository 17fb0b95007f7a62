#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""tools/report-md's section on the portable half against plain Kokkos: each portable row meets the Kokkos
counterpart of its size (a Jacobi CG form the Kokkos Jacobi PCG), Kokkos' own forms run through ksync are
left out, and a ratio under 1 is 'within noise' only where the repetitions overlap; on a host backend the
index functors' `batched` rows, Kokkos' own RangePolicy loop there, are left out too.
usage: check_report_parity.py TOOLS_DIR WORK_DIR"""

import json
import pathlib
import shutil
import subprocess
import sys


def rows(name, *seconds):
    """One entry per repetition of `name`."""
    return [{"name": name + "/manual_time", "run_name": name + "/manual_time", "run_type": "iteration",
             "repetitions": len(seconds), "repetition_index": k, "iterations": 10, "real_time": s * 1e9,
             "cpu_time": s * 1e9, "time_unit": "ns"} for k, s in enumerate(seconds)]


def parity_section(tools, work, context, entries):
    """The parity section report-md writes for one portable suite of `entries` with `context`, and what failed."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work / "portable.json").write_text(json.dumps({"context": context, "benchmarks": entries}))
    done = subprocess.run([sys.executable, str(tools / "report-md"), str(work)], capture_output=True, text=True)
    text = (work / "report.md").read_text() if (work / "report.md").exists() else ""
    section = text.partition("## The portable half against plain Kokkos")[2].partition("\n## ")[0]
    failures = [] if done.returncode == 0 else [f"report-md exited {done.returncode}: {done.stderr}"]
    return section, failures


def main():
    tools, work = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    entries = [
        *rows("portable/cg_csr/poisson_2d/kokkos_host_scalars/double/64", 1.0, 1.0, 1.0),
        *rows("portable/cg_csr/poisson_2d/jacobi/kokkos_host_scalars/double/64", 1.2, 1.2, 1.2),
        *rows("portable/cg_csr/poisson_2d/fused/double/64", 0.8, 0.8, 0.8),  # 1.25
        *rows("portable/cg_csr/poisson_2d/jacobi/fused/double/64", 1.1, 1.1, 1.1),  # 1.09 against the PCG
        *rows("kokkos/stream/add/float/range_policy/1024", 1.0, 1.1, 1.2),
        *rows("portable/stream/add/float/batched/1024", 1.15, 1.2, 1.3),  # 0.92, overlapping: within noise
        *rows("portable/stream/add/float/kokkos/1024", 9.0, 9.0, 9.0),  # Kokkos' own form: left out
        *rows("kokkos/stream/mul/float/range_policy/1024", 1.0, 1.0, 1.0),
        *rows("portable/stream/mul/float/batched/1024", 1.5, 1.5, 1.5),  # 0.67: slower
    ]
    section, failures = parity_section(tools, work / "gpu", {}, entries)
    wanted = [
        ("| CG, CSR matrices | 2 | 2 | 0 | 0 | 1.09 (portable/cg_csr/poisson_2d/jacobi/fused/double/64) | 1.25 |",
         "the Jacobi form against the Kokkos PCG, the classic one against the Kokkos CG"),
        ("| STREAM kernels | 2 | 0 | 1 | 1 | 0.67 (portable/stream/mul/float/batched/1024) | 0.92 |",
         "one row within noise, one slower, Kokkos' own form left out"),
        ("| portable/stream/mul/float/batched/1024 | kokkos/stream/mul/float/range_policy/1024 | 0.67 |",
         "the slower row listed"),
    ]
    failures += [f"{why}: no line '{line}'" for line, why in wanted if line not in section]
    # The same rows from an OpenMP run: `batched` is Kokkos' own loop there, so the STREAM rows have no pair.
    host_section, host_failures = parity_section(tools, work / "host", {"kokkos_execution_space": "OpenMP"}, entries)
    failures += host_failures
    if "| STREAM kernels |" in host_section:
        failures.append("on a host backend the `batched` STREAM rows are Kokkos' own loop, yet they were paired")
    if "on OpenMP, a host backend, the index functors' `batched` too" not in host_section:
        failures.append("the host section does not say why `batched` is left out")
    if "| CG, CSR matrices | 2 | 2 | 0 | 0 |" not in host_section:
        failures.append("on a host backend the CG rows must still be paired")
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        print(section)
        print(host_section)
        sys.exit(1)
    print("report parity section: OK")


if __name__ == "__main__":
    main()
