# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Prints, from the Google Benchmark JSON files of one run (the native suite, which holds the bandwidth and
kernel rows, and the portable suite), the pipeline tables of docs/streams.md as Markdown:
  1. what bounds the pipeline: pinned and pageable copies one way, pinned copies both ways at once, the
     kernel alone;
  2. every (issue order, streams, chunk size) of each path: milliseconds per run and the overlap efficiency,
     ideal bound / measured, where
       bound(C) = max(B / one-way H2D, B / one-way D2H, 2B / both ways, kernel) + C / H2D + C / D2H
     for B bytes each way and chunks of C bytes (one chunk of fill and one of drain);
  3. the best (fastest) configuration of each path, the classic one (4 streams, 4 MiB chunks, depth-first),
     the serial case (1 stream, one chunk) and the pageable row, and the pipeline targets.
usage: pipeline-tables FILE.json [FILE.json ...]"""

import sys

from ksync_tools.results import run_entries, seconds_of as seconds
from ksync_tools.tables import markdown_table


def load(paths):
    """{run name: entry} of the JSON files `paths`, without the rows that failed (results.run_entries)."""
    return {entry["run_name"].removesuffix("/manual_time"): entry for entry in run_entries(paths)
            if not entry.get("error_occurred")}


def pipeline_rows(rows, path):
    """{(order, streams, chunk_bytes): seconds} of one path ('native' or 'portable'), pinned memory."""
    found = {}
    prefix = f"{path}/pipeline/"
    for name, entry in rows.items():
        if not name.startswith(prefix) or "streams:" not in name or "/pageable/" in name:
            continue
        order = name[len(prefix):].split("/")[0]
        found[(order, int(entry["streams"]), int(entry["chunk_bytes"]))] = seconds(entry)
    return found


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = load(sys.argv[1:])
    bandwidth = {}
    for kind in ("h2d_pinned", "d2h_pinned", "both_ways_pinned", "h2d_pageable", "d2h_pageable"):
        entry = rows.get(f"native/pipeline/bandwidth/{kind}")
        if entry:
            bandwidth[kind] = entry["bytes_per_second"]
    kernel = rows.get("native/pipeline/kernel")
    if not kernel or not all(k in bandwidth for k in ("h2d_pinned", "d2h_pinned", "both_ways_pinned")):
        sys.exit("pipeline-tables: the native bandwidth and kernel rows are missing")
    n = int(kernel["n"])
    each_way = 4 * n
    kernel_seconds = kernel["seconds_per_call"]
    print(f"n = {n} floats ({each_way / 2**20:.0f} MiB each way), y = 2x")
    print()
    lines = [[kind.replace("_", " "), f"{value / 1e9:.1f} GB/s"] for kind, value in bandwidth.items()]
    lines.append(["kernel alone (all n)", f"{kernel_seconds * 1e3:.3f} ms"])
    print("\n".join(markdown_table(["what", "measured"], "lr", lines)))
    steady = max(each_way / bandwidth["h2d_pinned"], each_way / bandwidth["d2h_pinned"],
                 2 * each_way / bandwidth["both_ways_pinned"], kernel_seconds)

    def bound(chunk_bytes):
        return steady + chunk_bytes / bandwidth["h2d_pinned"] + chunk_bytes / bandwidth["d2h_pinned"]

    print(f"\nSteady-state bound (no fill or drain): {steady * 1e3:.3f} ms.")
    best = {}
    for path in ("native", "portable"):
        table = pipeline_rows(rows, path)
        if not table:
            continue
        chunks = sorted({c for _, _, c in table})
        print(f"\n{path}: ms per run (overlap efficiency = bound / measured)\n")
        header = ["order", "streams", *(f"{c // 1024} KiB" if c < 2**20 else f"{c // 2**20} MiB" for c in chunks)]
        lines = []
        for order in ("depth_first", "breadth_first"):
            for streams in sorted({s for o, s, _ in table if o == order}):
                cells = []
                for c in chunks:
                    t = table.get((order, streams, c))
                    cells.append(f"{t * 1e3:.3f} ({bound(c) / t:.0%})" if t else "")
                lines.append([order, str(streams), *cells])
        print("\n".join(markdown_table(header, "lr" + "r" * len(chunks), lines)))
        key = min(table, key=table.get)  # the fastest configuration
        best[path] = (key, table[key])
        reference = table.get(("depth_first", 4, 4 * 2**20))
        serial = table.get(("depth_first", 1, each_way))
        print()
        order, streams, c = key
        print(f"- best: {order}, {streams} streams, {c // 1024} KiB chunks: {table[key] * 1e3:.3f} ms, "
              f"{table[key] / bound(c):.3f}x its bound ({bound(c) * 1e3:.3f} ms)")
        if reference:
            print(f"- the reference configuration of docs/streams.md (depth-first, 4 streams, 4 MiB): "
                  f"{reference * 1e3:.3f} ms, {reference / bound(4 * 2**20):.3f}x its bound")
        if serial:
            print(f"- serial (1 stream, one chunk): {serial * 1e3:.3f} ms; best overlapped: "
                  f"{serial / table[key]:.2f}x faster")
        pageable = rows.get(f"{path}/pipeline/pageable/depth_first/streams:4/chunk_kib:4096")
        if pageable:
            print(f"- the reference configuration from pageable memory: {seconds(pageable) * 1e3:.3f} ms")

    print()
    targets = []
    for path, (key, t) in best.items():
        ratio = t / bound(key[2])
        targets.append([f"{path}: best pipeline <= 1.05x its ideal bound", f"{ratio:.3f}x",
                        "yes" if ratio <= 1.05 else "no"])
    if "native" in best and "portable" in best:
        ratio = best["portable"][1] / best["native"][1]
        targets.append(["Kokkos best <= 1.05x native best", f"{ratio:.3f}x", "yes" if ratio <= 1.05 else "no"])
    print("\n".join(markdown_table(["target", "measured", "holds"], "lrl", targets)))


if __name__ == "__main__":
    main()
