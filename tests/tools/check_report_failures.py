#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""tools/report-md on rows a suite marked failed or refused (bench/checks.hpp): a failed row is listed at the
top of the report, left out of its tables, and makes report-md exit 1; a refused row is listed but passes;
without such rows the same input passes. usage: check_report_failures.py TOOLS_DIR WORK_DIR"""

import json
import pathlib
import shutil
import subprocess
import sys


def row(name, seconds, error=None):
    entry = {"name": name + "/manual_time", "run_name": name + "/manual_time", "run_type": "iteration",
             "repetitions": 1, "repetition_index": 0, "iterations": 100, "real_time": seconds * 1e9,
             "cpu_time": seconds * 1e9, "time_unit": "ns", "bytes_per_second": 4096 / seconds,
             "seconds_per_call": seconds, "calls_per_sample": 1, "n": 1024}
    if error:
        entry.update({"error_occurred": True, "error_message": error})
    return entry


def report(tools, folder, entries):
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "portable.json").write_text(json.dumps({"context": {}, "benchmarks": entries}))
    done = subprocess.run([sys.executable, str(tools / "report-md"), str(folder)], capture_output=True, text=True)
    return done.returncode, (folder / "report.md").read_text() if (folder / "report.md").exists() else "", done


def main():
    tools, work = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    good = [row("portable/reduce/sum/float/kokkos/1024", 2e-6), row("portable/device_copy/float/1024", 1e-6)]
    wrong = row("portable/reduce/sum/float/team/1024", 1e-9, "wrong result: sum of 1024 elements is 0, expected 3584")
    refusal = row("portable/reduce/sum/float/cluster/1024", 1e-9, "refused: no clusters on this device")
    failures = []

    status, text, done = report(tools, work / "clean", good + [refusal])
    if status != 0:
        failures.append(f"a run without failed rows exited {status}: {done.stderr}")
    if "## FAILED" in text:
        failures.append("a run without failed rows has a FAILED section")
    if "## Refused by this device: 1 row(s)" not in text or "cluster/1024" not in text:
        failures.append("the refused row is not listed")

    status, text, done = report(tools, work / "failed", good + [wrong, refusal])
    if status != 1:
        failures.append(f"a run with a wrong result exited {status}, not 1")
    if "team/1024" not in done.stderr:
        failures.append(f"report-md's error does not name the row: {done.stderr!r}")
    top = text.find("## FAILED: 1 row(s)")
    if top == -1 or top > text.find("## Fingerprint"):
        failures.append("the failed row is not listed at the top of the report")
    if "`portable/reduce/sum/float/team/1024`: wrong result: sum of 1024" not in text:
        failures.append("the FAILED section does not give the row and its message")
    if text.count("portable/reduce/sum/float/team/1024") != 1:
        failures.append("the failed row's figures appear in a table")

    for failure in failures:
        print("FAIL:", failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
