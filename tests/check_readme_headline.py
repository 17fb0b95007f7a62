#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Recomputes README.md's headline from the JSON of the results folder it names, without tools/ (so it checks
tools/readme-headline and tools/report-md instead of re-running them): every figure must be the median over
the repetitions of its benchmark row, printed as the headline prints it.
usage: check_readme_headline.py REPOSITORY_ROOT"""

import gzip
import json
import pathlib
import re
import statistics
import sys

UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def repetitions(folder):
    """{(suite, run name): [entries]} for every benchmark that ran without error, one entry per repetition."""
    runs = {}
    for path in sorted([*folder.glob("*.json"), *folder.glob("*.json.gz")]):
        if path.name == "fingerprint.json":
            continue
        text = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_text()
        for entry in json.loads(text).get("benchmarks", []):
            if entry.get("run_type") == "aggregate" or entry.get("error_occurred"):
                continue
            name = entry["run_name"].removesuffix("/manual_time")
            runs.setdefault((path.name.split(".")[0], name), []).append(entry)
    return runs


def main():
    root = pathlib.Path(sys.argv[1])
    readme = (root / "README.md").read_text()
    found = re.search(r"<!-- headline: written by tools/readme-headline (\S+) -->\n(.*?)<!-- headline: end -->",
                      readme, re.S)
    if not found:
        sys.exit("check_readme_headline: README.md has no headline markers")
    folder, table = root / found.group(1), found.group(2)
    runs = repetitions(folder)

    def median(suite, name, key=None):
        entries = runs.get((suite, name))
        if not entries:
            sys.exit(f"check_readme_headline: {folder.name} has no row {suite}:{name}")
        if key:
            return statistics.median(entry[key] for entry in entries)
        return statistics.median(entry["seconds_per_call"] if "seconds_per_call" in entry
                                 else entry["real_time"] * UNIT[entry["time_unit"]] for entry in entries)

    def us(seconds, digits=2):
        return f"{seconds * 1e6:.{digits}f} µs"

    def tbs(moved, seconds):
        return f"{moved / seconds / 1e12:.2f} TB/s"

    expected = {}  # first cell of a headline row -> strings that row must hold
    for n, label, show in ((1 << 20, "float sum, n = 2^20", us), (1 << 28, "float sum, n = 2^28",
                                                                  lambda s: tbs(4 * (1 << 28), s))):
        native = {s: median("native", f"native/reduce/sum/float/{s}/{n}")
                  for s in ("two_pass", "last_block", "grid_sync", "cluster", "atomics")
                  if ("native", f"native/reduce/sum/float/{s}/{n}") in runs}
        best = min(native, key=native.get)
        expected[label] = [f"{show(native[best])} ({best})",
                           f"{show(median('portable', f'portable/reduce/sum/float/tuned/{n}'))} (tuned)",
                           f"CUB {show(median('native', f'cub/reduce/sum/float/{n}'))}",
                           f"`parallel_reduce` {show(median('portable', f'portable/reduce/sum/float/kokkos/{n}'))}"]
    n = 1 << 28
    expected["y = 2x, n = 2^28 (read + write)"] = [
        tbs(8 * n, median("native", f"native/transform/float/{n}")),
        f"{tbs(8 * n, median('portable', f'portable/transform/float/tuned/{n}'))} (tuned)",
        f"device copy {tbs(8 * n, median('native', f'native/device_copy/float/{n}'))}",
        f"`parallel_for` {tbs(8 * n, median('portable', f'portable/transform/float/kokkos/{n}'))}"]
    per_barrier = "seconds_per_barrier"
    expected["barrier, block of 1024 threads"] = [
        f"`__syncthreads` {median('native', 'native/barrier/syncthreads/1024', per_barrier) * 1e9:.0f} ns",
        f"`team_barrier` {median('portable', 'portable/barrier/team_barrier/1024', per_barrier) * 1e9:.0f} ns"]
    expected["grid barrier (one 256-thread block per SM) · step between two empty kernels"] = [
        f"`grid.sync()` {us(median('native', 'native/barrier/grid_sync/1_block_per_sm', per_barrier))}",
        f"spin barrier {us(median('native', 'native/barrier/spin_barrier/1_block_per_sm', per_barrier))}",
        f"Kokkos graph node {us(median('portable', 'portable/barrier/kokkos_graph_node', per_barrier))}",
        f"kernel relaunch {us(median('native', 'native/barrier/kernel_relaunch', per_barrier))}",
        f"CUDA graph node {us(median('native', 'native/barrier/cuda_graph_node', per_barrier))}"]
    reference, serial = "depth_first/streams:4/chunk_kib:4096", "depth_first/streams:1/chunk_kib:65536"
    expected["pipeline, 64 MiB each way over PCIe (4 streams, 4 MiB chunks)"] = [
        us(median("native", f"native/pipeline/{reference}"), 0),
        us(median("portable", f"portable/pipeline/{reference}"), 0),
        f"one stream, one chunk: {us(median('native', f'native/pipeline/{serial}'), 0)}"]

    rows = {line.split("|")[1].strip(): line for line in table.splitlines() if line.startswith("| ")}
    problems = []
    for label, strings in expected.items():
        if label not in rows:
            problems.append(f"no headline row '{label}'")
            continue
        problems += [f"row '{label}' should hold '{text}' (the median over the repetitions): {rows[label]}"
                     for text in strings if text not in rows[label]]
    if problems:
        sys.exit("check_readme_headline: README.md's headline is not the medians of " + found.group(1) + ":\n  " +
                 "\n  ".join(problems))
    print(f"check_readme_headline: {sum(map(len, expected.values()))} headline figures are the medians of "
          f"{found.group(1)}")


if __name__ == "__main__":
    main()
