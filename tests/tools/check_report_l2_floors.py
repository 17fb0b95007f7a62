#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""tools/report-md's CG bytes floors against the L2 the native suite records (l2_cache_bytes): where every vector
a recurrence keeps fits the L2 the report says so, naming those m, and the plot draws the floor there as a
reference, not a bound; a larger m keeps its floor; a run without the field reads as before. The plot's roles
are checked where matplotlib is found (else skipped, saying so). usage: check_report_l2_floors.py TOOLS_DIR
WORK_DIR"""

import json
import pathlib
import shutil
import subprocess
import sys

MIB = 2**20


def row(name, seconds, **counters):
    entry = {"name": name + "/manual_time", "run_name": name + "/manual_time", "run_type": "iteration",
             "repetitions": 1, "repetition_index": 0, "iterations": 1, "real_time": seconds * 1e9,
             "cpu_time": seconds * 1e9, "time_unit": "ns"}
    entry.update(counters)
    return entry


def rows():
    """The persistent form under its fused floor at m = 1024 (vectors in L2), over it at 2048; a 3 TB/s copy."""
    copy_seconds = 1e-3
    entries = [row("native/cg_floor/copy/double", copy_seconds, bytes_per_second=3e12)]
    for m, persistent, kokkos in ((256, 6e-6, 45e-6), (1024, 26e-6, 70e-6), (2048, 120e-6, 200e-6)):
        entries.append(row(f"native/cg/persistent_grid_sync/double/{m}", persistent * 200,
                           seconds_per_iteration=persistent))
        entries.append(row(f"portable/cg/kokkos_host_scalars/double/{m}", kokkos * 200, seconds_per_iteration=kokkos))
    return entries


def report(tools, folder, context):
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    native = [entry for entry in rows() if entry["name"].startswith("native/")]
    portable = [entry for entry in rows() if entry["name"].startswith("portable/")]
    (folder / "native.json").write_text(json.dumps({"context": context, "benchmarks": native}))
    (folder / "portable.json").write_text(json.dumps({"context": {}, "benchmarks": portable}))
    done = subprocess.run([sys.executable, str(tools / "report-md"), str(folder)], capture_output=True, text=True)
    return (folder / "report.md").read_text() if (folder / "report.md").exists() else "", done


def main():
    tools, work = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    sys.path.insert(0, str(tools))
    from ksync_tools import solver_tables

    failures = []
    # 5 classic vectors of 8 m^2 bytes: 40 MiB at m = 1024 fits 50 MiB, 160 MiB at 2048 does not.
    fits = {m: solver_tables.vectors_fit_l2(m, 50 * MIB, "classic") for m in (256, 1024, 2048)}
    if fits != {256: True, 1024: True, 2048: False}:
        failures.append(f"classic vectors in a 50 MiB L2: {fits}")
    if solver_tables.vectors_fit_l2(1024, 0, "classic"):
        failures.append("an unknown L2 (0) is taken to hold the vectors")
    if solver_tables.vectors_fit_l2(1024, 50 * MIB, "pipelined"):
        failures.append("7 pipelined vectors at m = 1024 (56 MiB) are taken to fit 50 MiB")
    if solver_tables.l2_bytes_of({"native-2": {"l2_cache_bytes": str(50 * MIB)}, "portable": {}}) != 50 * MIB:
        failures.append("the L2 recorded by a native file named native-2 is not read")

    text, done = report(tools, work / "with_l2", {"l2_cache_bytes": str(50 * MIB)})
    if done.returncode != 0:
        failures.append(f"report-md exited {done.returncode}: {done.stderr}")
    if "At m = 256, 1024 (classic) and m = 256 (pipelined) every vector" not in text:
        failures.append("the report does not name the m whose vectors fit the L2")
    text, done = report(tools, work / "without_l2", {})
    if done.returncode != 0 or "fits the L2" in text:
        failures.append("a run without l2_cache_bytes speaks of the L2")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("check_report_l2_floors: matplotlib not found: the plot's roles are not checked")
        plt = None
    if plt is not None:
        from ksync_tools.results import load
        folder = work / "with_l2"
        loaded, contexts = load(folder)
        measured = solver_tables.main_section(loaded, [], solver_tables.l2_bytes_of(contexts))
        _, drawn = solver_tables.plot(plt, folder, measured)
        fused = {line["role"]: line["x"] for line in drawn if "bytes (fused)" in line["label"]}
        if list(fused.get("floor", [])) != [2048] or list(fused.get("reference", [])) != [256, 1024]:
            failures.append(f"the fused bytes floor is drawn as {fused}, not a floor at 2048 and a reference below")

    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
