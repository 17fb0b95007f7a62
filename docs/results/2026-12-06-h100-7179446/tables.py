#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Prints what README.md's tables read from this folder: each CG row's µs an iteration in both rounds of both
builds, with its time over the bytes floor (bytes_per_iteration over the copy rate of native-floor.json.gz),
and the MPI bench's columns per round with their medians. Run from anywhere: python3 tables.py"""

import gzip
import json
import pathlib
import re
import statistics

HERE = pathlib.Path(__file__).resolve().parent


def medians(name):
    with gzip.open(HERE / name, "rt") as f:
        return {b["run_name"].removesuffix("/manual_time"): b for b in json.load(f)["benchmarks"]
                if b.get("aggregate_name") == "median"}


rate = next(iter(medians("native-floor.json.gz").values()))["bytes_per_second"]
print(f"copy rate {rate / 1e12:.2f} TB/s")
runs = {(build, r): medians(f"portable-cg-{build}-{r}.json.gz") for build in ("head", "old") for r in (1, 2)}
for row in runs[("head", 1)]:
    cells = []
    for build in ("head", "old"):
        for r in (1, 2):
            b = runs[(build, r)][row]
            us = b["seconds_per_iteration"] * 1e6
            floor = b["bytes_per_iteration"] / rate * 1e6
            cells.append(f"{build}{r} {us:.1f}" + (f" ({us / floor:.2f}x floor)" if floor else ""))
    print(row, " | ".join(cells))

columns = {}
for r in (1, 2, 3):
    half = "portable"
    for line in (HERE / f"mpi-2rank-mps-{r}.md").read_text().splitlines():
        if "native half" in line:
            half = "native"
        m = re.match(r"\| (\d+) \|(.*)\|\s*$", line)
        if m:
            columns.setdefault((half, int(m.group(1))), []).append([float(x) for x in m.group(2).split("|")])
for key, rounds in columns.items():
    print(key, " ".join(f"{statistics.median(c)} {list(c)}" for c in zip(*rounds)))
