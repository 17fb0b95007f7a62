#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""tools/report-md's plots of a committed results folder, drawn into WORK_DIR: every plot file exists; no two
series of one plot share colour, line style and marker; every ceiling lies at or above, every floor at or
below, the series it bounds at each n where both exist. A series may pass its bound by TOLERANCE: the bounds
are measured in the same run (the reduction's ceiling is the fastest stream timed, and the fastest native
sum at 2^28 reads 1 % faster than it). Each headline plot is checked the same way, and its best native (best
portable) series must be, at each n, the fastest of the full plot's native (portable) series: the highest
bandwidth, the lowest time for CG; report.md places it beside its full plot, in one table row. Without
matplotlib it skips, saying so.
usage: check_report_plots.py PROJECT_DIR RESULTS_FOLDER WORK_DIR"""

import pathlib
import shutil
import sys

TOLERANCE = 0.02
# headline plot -> (full plot, which is best: max of bandwidth, min of time)
HEADLINES = {"reduce_bandwidth_headline.png": ("reduce_bandwidth.png", max),
             "transform_bandwidth_headline.png": ("transform_bandwidth.png", max),
             "cg_iteration_headline.png": ("cg_iteration.png", min),
             "stream_copy_bandwidth_headline.png": ("stream_copy_bandwidth.png", max),
             "stream_dot_bandwidth_headline.png": ("stream_dot_bandwidth.png", max),
             "cg_csr_poisson_2d_headline.png": ("cg_csr_poisson_2d.png", min),
             "cg_csr_poisson_3d_headline.png": ("cg_csr_poisson_3d.png", min)}


def check(drawn):
    failures = []
    for file, series in sorted(drawn.items()):
        if not (WORK / file).exists():
            failures.append(f"{file}: not written")
        looks = {}
        for line in series:
            key = (line["colour"], str(line["style"]), line["marker"])
            if key in looks:
                failures.append(f"{file}: '{line['label']}' and '{looks[key]}' share colour, style and marker {key}")
            looks[key] = line["label"]
        data = [line for line in series if line["role"] == "data"]
        for bound in (line for line in series if line["role"] in ("ceiling", "floor")):
            at = dict(zip(bound["x"], bound["y"]))
            for line in data:
                if bound["bounds"] is not None and line["label"] not in bound["bounds"]:
                    continue
                for x, y in zip(line["x"], line["y"]):
                    if x not in at:
                        continue
                    over = y / at[x] - 1 if bound["role"] == "ceiling" else at[x] / y - 1
                    if over > TOLERANCE:
                        failures.append(f"{file}: '{line['label']}' at {x}: {y:.4g}, {bound['role']} "
                                        f"'{bound['label']}' {at[x]:.4g}")
                    elif over > 0:
                        print(f"within tolerance: {file}: '{line['label']}' at {x} passes {bound['label']} "
                              f"by {over:.1%}")
    return failures


def check_headlines(drawn, identity):
    failures = []
    for file, (full, better) in HEADLINES.items():
        if file not in drawn or full not in drawn:
            continue
        for half in ("native", "portable"):
            lines = [line for line in drawn[full] if line["role"] == "data" and identity(line["label"])[0] == half]
            best = [line for line in drawn[file] if line["label"].startswith(f"best {half} (per ")]
            if not lines:
                continue
            if len(best) != 1:
                failures.append(f"{file}: {len(best)} 'best {half}' series, want 1")
                continue
            want = {}
            for line in lines:
                for x, y in zip(line["x"], line["y"]):
                    want[x] = better(want.get(x, y), y)
            got = dict(zip(best[0]["x"], best[0]["y"]))
            if set(got) != set(want):
                failures.append(f"{file}: best {half} at {sorted(got)}, the full plot's at {sorted(want)}")
            for x in sorted(set(got) & set(want)):
                if abs(got[x] / want[x] - 1) > 1e-9:
                    failures.append(f"{file}: best {half} at {x}: {got[x]:.4g}, the full plot's best {want[x]:.4g}")
    return failures


def check_side_by_side(drawn, report):
    """Each headline sits beside its full plot: one row of report.md holds both images."""
    lines = report.splitlines()
    return [f"report.md: {file} is not beside {full} (no line links both)"
            for file, (full, _) in HEADLINES.items() if file in drawn and full in drawn
            and not any(f"]({file})" in line and f"]({full})" in line for line in lines)]


def main():
    global WORK
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("ksync-skip: matplotlib is not installed for this Python; the plots are not drawn")
        return 0
    project, results, WORK = (pathlib.Path(a) for a in sys.argv[1:4])
    sys.dont_write_bytecode = True
    sys.path.insert(0, str(project / "tools"))
    from ksync_tools import sparse_tables
    from ksync_tools.plot_style import identity
    from ksync_tools.report import write_report
    from ksync_tools.results import load

    shutil.rmtree(WORK, ignore_errors=True)
    shutil.copytree(results, WORK)
    drawn = write_report(WORK) or {}
    rows, _ = load(WORK)
    wanted = set()
    if any(name.startswith("native/reduce/") for name in rows):  # a whole run, not one of a few families
        wanted |= {"reduce_bandwidth.png", "transform_bandwidth.png", "kokkos_over_native.png", "barrier_costs.png",
                   "cg_iteration.png"}
    if any("/stream/" in name for name in rows):  # runs from 2026-12-02 on time the index functors
        wanted |= {"stream_copy_bandwidth.png", "stream_dot_bandwidth.png"}
    for matrix, table in sparse_tables.families(rows).items():  # a matrix timed at several sizes
        if len(set().union(*table.values())) > 1:
            wanted.add(f"cg_csr_{matrix}.png")
    wanted |= {headline for headline, (full, _) in HEADLINES.items() if full in wanted}
    failures = [f"{file}: not drawn" for file in sorted(wanted - set(drawn))]
    failures += check(drawn)
    failures += check_headlines(drawn, identity)
    failures += check_side_by_side(drawn, (WORK / "report.md").read_text())
    for file, series in sorted(drawn.items()):
        roles = {}
        for line in series:
            roles[line["role"]] = roles.get(line["role"], 0) + 1
        print(f"{file}: " + ", ".join(f"{count} {role}" for role, count in sorted(roles.items())))
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
