# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Reading a run's Google Benchmark JSON, once for every tool: one call's seconds, the median, the rows of a
results folder with their repetitions, the rows a suite marked failed or refused, counters, and the one
entry per benchmark the table tools print (the median aggregate where there were repetitions)."""

import gzip
import json
import pathlib
import statistics
import sys


def median(values):
    """The median every figure of the tools is: over a row's repetitions."""
    return statistics.median(values)


def seconds_of(entry):
    """One call's seconds: seconds_per_call where a sample was a batch of calls (bench/common.hpp)."""
    if "seconds_per_call" in entry:
        return entry["seconds_per_call"]
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[entry.get("time_unit", "ns")]
    return entry["real_time"] * scale


def suite_files(folder):
    """The suites' JSON files of a results folder (every *.json or *.json.gz but fingerprint.json), in name
    order. Committed folders keep their JSON gzipped (CONTRIBUTING.md); tools/ksync bench writes it plain."""
    folder = pathlib.Path(folder)
    paths = [*folder.glob("*.json"), *folder.glob("*.json.gz")]
    return sorted((path for path in paths if path.name != "fingerprint.json"), key=suite_name)


def suite_name(path):
    """A suite file's name without .json or .json.gz: native, portable."""
    return pathlib.Path(path).name.removesuffix(".gz").removesuffix(".json")


def read_json(path):
    """A JSON file, plain or gzipped."""
    path = pathlib.Path(path)
    text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
    return json.loads(text)


def load(folder):
    """{run name: {'samples': [seconds], 'median', 'rate': median bytes/s, 'spread', 'entries': every repetition
    (or the median aggregate alone, where the run kept only aggregates), 'entry': the last one (for its labels;
    numbers come from counter()), 'suite': file}} and the suites' contexts. A name both suites report gets the
    second suite's prefix ('portable:cub/...')."""
    rows, contexts = {}, {}
    for path in suite_files(folder):
        data = read_json(path)
        suite = suite_name(path)
        contexts[suite] = data.get("context", {})
        entries = data.get("benchmarks", [])
        # A run made with --benchmark_report_aggregates_only keeps only aggregates: its median stands for the
        # repetitions (one sample, no spread).
        repeated = {entry["run_name"] for entry in entries if entry.get("run_type") != "aggregate"}
        for entry in entries:
            if entry.get("error_occurred"):
                continue
            if entry.get("run_type") == "aggregate" and (entry["run_name"] in repeated
                                                         or entry.get("aggregate_name") != "median"):
                continue
            name = entry["run_name"].removesuffix("/manual_time")
            if name in rows and rows[name]["suite"] != suite:
                name = f"{suite}:{name}"  # a baseline both suites time (CUB): each suite's own row
            family = entry.get("family_index")
            first = rows.get(name, {}).get("entries", [{}])[0]
            if name in rows and first.get("family_index") != family and rows[name]["suite"] == suite:
                # Two families under one name (older suites registered a device copy twice): each keeps its
                # own row, the second named after its family, instead of merging as repetitions of one.
                renamed = f"{name}#family{family}"
                if renamed not in rows:
                    print(f"{path.name}: '{name}' is registered by two benchmark families; the second is reported "
                          f"as '{renamed}'", file=sys.stderr)
                name = renamed
            row = rows.setdefault(name, {"samples": [], "rates": [], "entries": [], "suite": suite})
            row["samples"].append(seconds_of(entry))
            row["rates"].append(entry.get("bytes_per_second", 0.0))
            row["entries"].append(entry)
            row["entry"] = entry
    for row in rows.values():
        row["median"] = median(row["samples"])
        row["rate"] = median(row["rates"])
        # The relative noise of a row: (max - min) / median over its repetitions.
        row["spread"] = (max(row["samples"]) - min(row["samples"])) / row["median"] if row["median"] else 0.0
    return rows, contexts


def error_rows(folder):
    """The rows a suite marked with an error (bench/checks.hpp), as (suite, name, message) lists: failed (a
    wrong result, a failed call) and refused (a request this device does not take, e.g. a cluster size)."""
    failed, refused = [], []
    for path in suite_files(folder):
        for entry in read_json(path).get("benchmarks", []):
            if entry.get("error_occurred") and entry.get("run_type") != "aggregate":
                message = entry.get("error_message", "")
                row = (suite_name(path), entry["run_name"].removesuffix("/manual_time"), message)
                (refused if message.startswith("refused:") else failed).append(row)
    return failed, refused


def sized(rows, family):
    """{size: row} for the rows named family/<size> (n, m, ...), the tables' one way to pick a series."""
    found = {}
    for name, row in rows.items():
        head, _, size = name.rpartition("/")
        if head == family and size.isdigit():
            found[int(size)] = row
    return found


def counter(row, key):
    """The median over a row's repetitions of the user counter `key` (e.g. seconds_per_barrier); None when the
    row or the counter is missing. Every counter figure of the report and of README's headline comes from here."""
    if not row:
        return None
    values = [entry[key] for entry in row["entries"] if key in entry]
    return median(values) if values else None


def run_entries(paths):
    """One entry per benchmark of the JSON files `paths`: the median aggregate where the run had repetitions,
    else the run itself; rows with an error are kept (their error_occurred says so)."""
    for path in paths:
        rows = read_json(path).get("benchmarks", [])
        repeated = {entry["run_name"] for entry in rows if entry.get("run_type") == "aggregate"}
        for entry in rows:
            if entry.get("run_type") == "aggregate":
                if entry.get("aggregate_name") == "median":
                    yield entry
            elif entry["run_name"] not in repeated or entry.get("error_occurred"):
                yield entry
