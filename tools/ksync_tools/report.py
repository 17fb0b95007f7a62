# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes RESULTS_FOLDER/report.md, and PNG plots beside it, from what `tools/ksync bench` left there: the
suites' Google Benchmark JSON (portable.json, native.json), fingerprint.json and traces/.
  - the fingerprint: machine, GPU, clocks at start and end, driver, CUDA, compilers, Kokkos, commit, date;
  - per pattern and size (float sum, transform y = 2x): each implementation's time, GB/s, % of the ceiling
    measured in the same run (the fastest read or copy of the same n for reductions, the device copy for
    transforms), ratio to CUB and Kokkos / native;
  - hot and cold caches: each row timed after the L2 was overwritten beside its back-to-back twin;
  - conjugate gradients per form beside the same run's floors, the solver targets, and the blocking round
    trip host to host (solver_tables);
  - the barrier-cost table and the persistent workload (tools/sync-tables), the pipeline summary
    (tools/pipeline-tables), the concurrency rows, several GPUs (peer copies, the reduction's and the
    pipeline's scaling, ksync against NCCL);
  - every row: median, min and max over the repetitions and the spread (max - min) / median;
  - plots (matplotlib; without it the report says so and keeps the tables): bandwidth vs n, Kokkos /
    native, barrier costs, CG µs per iteration (stencil and assembled matrices), a pipeline timeline; of each
    bandwidth and CG plot a headline plot (best native, best portable, CUB, Kokkos, the ceilings or floors)
    beside the full one.
Rows a suite marked failed (a wrong result, a failed call: bench/checks.hpp) are listed at the top and left
out of every table, and report-md then exits 1.
usage: report-md RESULTS_FOLDER"""

import contextlib
import io
import json
import pathlib
import sys

from ksync_tools import parity_tables, pipeline_tables, solver_tables, sparse_tables, stream_tables, sync_tables
from ksync_tools.plots import plots
from ksync_tools.results import error_rows, load, sized, suite_files
from ksync_tools.source_tree import attribution
from ksync_tools.tables import markdown_table, power


def printed(function, *args):
    """What a tool's main() prints, as text (its exit, for missing rows, as None)."""
    saved = sys.argv
    sys.argv = ["tool", *args]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            function()
    except SystemExit:
        return None
    finally:
        sys.argv = saved
    return out.getvalue()


def error_section(failed, refused, out):
    """At the top of the report: every failed row (its figures are not measurements and appear nowhere
    else), then the refused ones."""
    if failed:
        out.append(f"## FAILED: {len(failed)} row(s) with a wrong result or a failed call\n")
        out.append("These rows are left out of every table below; the suite exited 1.\n")
        out.extend(f"- {suite}: `{name}`: {message}" for suite, name, message in failed)
        out.append("")
    if refused:
        out.append(f"## Refused by this device: {len(refused)} row(s)\n")
        out.extend(f"- {suite}: `{name}`: {message}" for suite, name, message in refused)
        out.append("")


def cell(value, digits=2, suffix=""):
    return "—" if value is None else f"{value:.{digits}f}{suffix}"


def reduce_ceiling(n, reads, cub, copies):
    """The reduction's ceiling at n in bytes/s (None without rows): the fastest memory stream of the same
    run, reads of n floats (Kokkos' and the native read streams, CUB's sum) and copies (n floats read and
    written)."""
    ceilings = [4 * n / table[n]["median"] for table in (*reads, cub) if n in table]
    ceilings += [8 * n / copy[n]["median"] for copy in copies if n in copy]
    return max(ceilings, default=0.0) or None


def reduction_section(rows, out):
    strategies = ["two_pass", "last_block", "grid_sync", "cluster", "atomics"]
    native = {s: sized(rows, f"native/reduce/sum/float/{s}") for s in strategies}
    cub = sized(rows, "cub/reduce/sum/float")
    # CUB as timed by the portable harness, where both suites ran it: the tuned strategy's own baseline.
    portable_cub = sized(rows, "portable:cub/reduce/sum/float") or cub
    kokkos = sized(rows, "portable/reduce/sum/float/kokkos")
    tuned = sized(rows, "portable/reduce/sum/float/tuned")
    reads = [sized(rows, "portable/read_stream/float"), sized(rows, "native/read_stream/float")]
    copies = [sized(rows, "native/device_copy/float"), sized(rows, "portable/device_copy/float")]
    sizes = sorted(set(cub) | set(kokkos) | set(tuned) | set().union(*[set(v) for v in native.values()]))
    if not sizes:
        return {}
    out.append("## Device-wide reduction: float sum\n")
    out.append("µs per call (median), GB/s in brackets. Ratios are speed ratios (time of the other over time "
               "of the first named). Ceiling: the fastest memory stream of the same run over the same n: "
               "the reads (a Kokkos `parallel_reduce` and a native 16-byte-load kernel reading the data, CUB's sum) and the device copies of both "
               "halves (read + write bytes); tuned / CUB uses CUB "
               "as timed by the portable harness where it ran there too.\n")
    header = ["n", "native best", "CUB", "Kokkos parallel_reduce", "ksync tuned (portable)", "ceiling GB/s",
              "native / CUB", "tuned / CUB", "tuned / Kokkos", "tuned / native", "native % of ceiling",
              "tuned % of ceiling"]
    lines = []
    ratios = {}
    ceiling_rates = {}
    for n in sizes:
        best = min(((native[s][n]["median"], s) for s in strategies if n in native[s]), default=None)
        t = {key: table[n]["median"] if n in table else None
             for key, table in (("cub", cub), ("portable_cub", portable_cub), ("kokkos", kokkos), ("tuned", tuned))}
        ceiling = reduce_ceiling(n, reads, cub, copies)
        ceiling_rates[n] = ceiling

        def bracket(seconds):
            return "—" if seconds is None else f"{seconds * 1e6:.2f} ({4 * n / seconds / 1e9:.0f})"

        def ratio(a, b):
            return a / b if a and b else None

        native_best = best[0] if best else None
        ratios[n] = ratio(native_best, t["tuned"])
        def percent(seconds):
            return cell(100 * 4 * n / seconds / ceiling if seconds and ceiling else None, 0, " %")

        lines.append([power(n), f"{bracket(native_best)}{' ' + best[1] if best else ''}", bracket(t["cub"]),
                      bracket(t["kokkos"]), bracket(t["tuned"]), cell(ceiling / 1e9 if ceiling else None, 0),
                      cell(ratio(t["cub"], native_best)), cell(ratio(t["portable_cub"], t["tuned"])),
                      cell(ratio(t["kokkos"], t["tuned"])), cell(ratios[n]), percent(native_best),
                      percent(t["tuned"])])
    out.extend(markdown_table(header, "rlrrrrrrrrrr", lines))
    out.append("")
    return {"reduce": ratios, "reduce_rows": (native, cub, kokkos, tuned, ceiling_rates)}


def transform_section(rows, out):
    families = {"native": "native/transform/float", "native copy": "native/device_copy/float",
                "Kokkos parallel_for": "portable/transform/float/kokkos",
                "ksync tuned (portable)": "portable/transform/float/tuned",
                "Kokkos copy": "portable/device_copy/float"}
    tables = {label: sized(rows, family) for label, family in families.items()}
    sizes = sorted(set().union(*[set(t) for t in tables.values()]))
    if not sizes:
        return {}
    out.append("## Transform y = 2x\n")
    out.append("µs per call (median), GB/s read + write in brackets; % of the device copy of the same path "
               "and run.\n")
    header = ["n", *tables, "native % of copy", "tuned % of copy", "tuned / native"]
    lines = []
    ratios = {}
    for n in sizes:
        t = {label: table[n]["median"] if n in table else None for label, table in tables.items()}
        cells = ["—" if s is None else f"{s * 1e6:.2f} ({8 * n / s / 1e9:.0f})" for s in t.values()]
        native_pct = 100 * t["native copy"] / t["native"] if t["native"] and t["native copy"] else None
        tuned_pct = (100 * t["Kokkos copy"] / t["ksync tuned (portable)"]
                     if t["ksync tuned (portable)"] and t["Kokkos copy"] else None)
        ratios[n] = t["native"] / t["ksync tuned (portable)"] if t["native"] and t["ksync tuned (portable)"] else None
        lines.append([power(n), *cells, cell(native_pct, 0, " %"), cell(tuned_pct, 0, " %"), cell(ratios[n])])
    out.extend(markdown_table(header, "r" * len(header), lines))
    out.append("")
    return {"transform": ratios, "transform_rows": tables}


def every_row_section(rows, out):
    out.append("## Every row\n")
    out.append("Median, min and max over the repetitions; spread = (max - min) / median.\n")
    lines = [[name, f"{row['median'] * 1e6:.2f} µs", f"{min(row['samples']) * 1e6:.2f} µs",
              f"{max(row['samples']) * 1e6:.2f} µs", f"{row['spread']:.1%}", f"{row['rate'] / 1e9:.1f}"]
             for name, row in sorted(rows.items())]
    out.extend(markdown_table(["benchmark", "median", "min", "max", "spread", "GB/s"], "lrrrrr", lines))
    out.append("")


def hot_cold_section(rows, out):
    """Every cold row (…_cold/…, L2 overwritten before each sample) beside its hot twin."""
    pairs = []
    for name, row in sorted(rows.items()):
        head, _, size = name.rpartition("/")
        if "_cold/" not in name or not size.isdigit():
            continue
        twin = rows.get(name.replace("_cold/", "/"))
        if twin:
            pairs.append((name.replace("_cold/", "/").rpartition("/")[0], int(size), twin["median"], row["median"]))
    if not pairs:
        return
    out.append("## Hot and cold caches\n")
    out.append("Hot: back-to-back calls, the data left in L2 by the previous call. Cold: one call after the L2 was "
               "overwritten (native: twice its size, same stream; portable: 512 MiB, same instance, then a "
               "fence, so its cold rows include the launch).\n")
    lines = [[family, power(n), f"{hot * 1e6:.2f} µs", f"{cold * 1e6:.2f} µs", f"{cold / hot:.2f}"]
             for family, n, hot, cold in pairs]
    out.extend(markdown_table(["benchmark", "n", "hot", "cold", "cold / hot"], "lrrrr", lines))
    out.append("")


def concurrency_section(rows, out):
    names = sorted(name for name in rows if name.startswith("native/concurrency/"))
    if not names:
        return
    out.append("## Concurrency: streams, events, managed memory (docs/streams.md)\n")
    lines = [[name.removeprefix("native/concurrency/"), f"{rows[name]['median'] * 1e6:.1f} µs"] for name in names]
    out.extend(markdown_table(["row", "median"], "lr", lines))
    out.append("")


def node_section(rows, out):
    """Several GPUs of one node: peer copies by path and direction, the reduction's and the pipeline's
    scaling from 1 to 2 GPUs, ksync's peer gather against NCCL."""
    copies = {name: row for name, row in rows.items() if name.startswith("native/node/peer_copy/")}
    reduces = {name: row for name, row in rows.items() if name.startswith("native/node/reduce/")}
    pipelines = {name: row for name, row in rows.items() if name.startswith("native/node/pipeline/")}
    if not (copies or reduces or pipelines):
        return
    out.append("## Several GPUs of one node (docs/multi-gpu.md)\n")
    if copies:
        out.append("Copies between GPU 0 and GPU 1, timed on GPU 0's stream around a fork and a join (cross-GPU "
                   "event waits included). `auto` is peer to peer where the GPUs allow it (its path in brackets), "
                   "`staged` goes through pinned host memory. GB/s counts the bytes moved (both ways: twice).\n")
        sizes = sorted({int(name.rpartition("/")[2]) for name in copies})
        families = sorted({name.rpartition("/")[0].removeprefix("native/node/peer_copy/") for name in copies})
        header = ["path / direction", *(f"{size} B" if size < 1024 else power(size) + " B" for size in sizes)]
        lines = []
        for family in families:
            cells = []
            for size in sizes:
                row = copies.get(f"native/node/peer_copy/{family}/{size}")
                if not row:
                    cells.append("—")
                elif size < (1 << 20):
                    cells.append(f"{row['median'] * 1e6:.2f} µs")
                else:
                    cells.append(f"{row['rate'] / 1e9:.0f} GB/s")
            label = copies[next(n for n in copies if f"/{family}/" in n)]["entry"].get("label", "")
            lines.append([f"{family} ({label})", *cells])
        out.extend(markdown_table(header, "l" + "r" * len(sizes), lines))
        out.append("")
    if reduces:
        out.append("Float sum of n elements spread over the GPUs, the value left on every GPU; µs per call "
                   "(median). Speed-up: 1 GPU over 2 GPUs, same combine.\n")
        sizes = sorted({int(name.rpartition("/")[2]) for name in reduces})
        header = ["n", "peer_gather, 1 GPU", "peer_gather, 2 GPUs", "nccl, 1 GPU", "nccl, 2 GPUs",
                  "speed-up peer_gather", "speed-up nccl", "nccl time / peer_gather time (2 GPUs)"]
        lines = []
        for n in sizes:
            t = {(c, g): rows.get(f"native/node/reduce/{c}/gpus:{g}/{n}") for c in ("peer_gather", "nccl")
                 for g in (1, 2)}
            m = {key: row["median"] if row else None for key, row in t.items()}

            def ratio(a, b):
                return cell(a / b if a and b else None)

            times = [cell(m[key] * 1e6 if m[key] else None)
                     for key in (("peer_gather", 1), ("peer_gather", 2), ("nccl", 1), ("nccl", 2))]
            lines.append([power(n), *times, ratio(m[("peer_gather", 1)], m[("peer_gather", 2)]),
                          ratio(m[("nccl", 1)], m[("nccl", 2)]), ratio(m[("nccl", 2)], m[("peer_gather", 2)])])
        out.extend(markdown_table(header, "r" * len(header), lines))
        out.append("")
    if pipelines:
        out.append("The chunked copy/compute/copy pipeline with one share per GPU (pinned host memory, 4 streams "
                   "per GPU, 4 MiB chunks): host wall time of a run and GB/s over both directions.\n")
        lines = [[name.rpartition(":")[2], f"{row['median'] * 1e3:.3f}", f"{row['rate'] / 1e9:.1f}"]
                 for name, row in sorted(pipelines.items())]
        out.extend(markdown_table(["GPUs", "ms per run", "GB/s"], "rrr", lines))
        out.append("")


def fingerprint_section(folder, contexts, out):
    out.append("## Fingerprint\n")
    path = folder / "fingerprint.json"
    if path.exists():
        data = json.loads(path.read_text())
        # The run is named after a commit only when that commit's tree is the tree measured (tools/fingerprint).
        out.append(f"- source: {attribution(data)}")
        for key, value in data.items():
            out.append(f"- {key}: {value}")
    for suite, context in sorted(contexts.items()):
        keep = {k: v for k, v in context.items() if k not in ("kokkos_configuration", "caches", "load_avg")}
        out.append(f"- {suite} suite: " + ", ".join(f"{k} = {v}" for k, v in sorted(keep.items())))
    out.append("")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    write_report(pathlib.Path(sys.argv[1]))


def write_report(folder):
    """Writes folder/report.md and its plots; returns what plots() drew ({file: [series]})."""
    rows, contexts = load(folder)
    failed, refused = error_rows(folder)
    if not rows and not failed:
        sys.exit(f"report-md: no benchmark results in {folder}")
    out = ["# ksync comparison report\n"]
    error_section(failed, refused, out)
    if not rows:
        (folder / "report.md").write_text("\n".join(out) + "\n")
        sys.exit(f"report-md: every row failed; wrote {folder / 'report.md'}")
    if "native" not in contexts:
        out.append("No native rows: the native suite needs a CUDA GPU (this run had none). The portable rows "
                   "ran on the backend named in the fingerprint.\n")
    fingerprint_section(folder, contexts, out)
    ratios = {}
    ratios["parity"] = parity_tables.section(rows, out,
                                             contexts.get("portable", {}).get("kokkos_execution_space", ""))
    ratios.update(reduction_section(rows, out))
    ratios.update(transform_section(rows, out))
    ratios.update(stream_tables.section(rows, out))
    suites = [str(path) for path in suite_files(folder)]
    has_sync_rows = any("/barrier/" in name or sync_tables.is_jacobi_iteration_row(name) for name in rows)
    sync = printed(sync_tables.main, *suites) if has_sync_rows else None
    if sync:
        out.append("## Barriers and the persistent workload (tools/sync-tables)\n")
        out.append(sync)
    pipeline = printed(pipeline_tables.main, *suites)
    if pipeline:
        out.append("## Pipeline (tools/pipeline-tables)\n")
        out.append(pipeline)
    elif any("/pipeline/" in name for name in rows):
        out.append("## Pipeline\n")
        out.append("The pipeline's bound needs the native suite's copy-bandwidth rows (a CUDA GPU); the portable "
                   "pipeline rows are under Every row.\n")
    ratios["solvers"] = solver_tables.main_section(rows, out, solver_tables.l2_bytes_of(contexts))
    ratios["sparse_solvers"] = sparse_tables.section(rows, out)
    hot_cold_section(rows, out)
    concurrency_section(rows, out)
    node_section(rows, out)
    out.append("## Plots\n")
    drawn = plots(folder, rows, ratios, out)
    every_row_section(rows, out)
    (folder / "report.md").write_text("\n".join(out) + "\n")
    print(f"report-md: wrote {folder / 'report.md'}")
    if failed:
        sys.exit(f"report-md: {len(failed)} row(s) failed (listed at the top of the report), e.g. "
                 f"{failed[0][1]}: {failed[0][2]}")
    return drawn


if __name__ == "__main__":
    main()
