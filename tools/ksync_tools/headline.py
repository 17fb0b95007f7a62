# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes README.md's headline (the lines between its two `headline` markers) from a committed benchmark
report: RESULTS_FOLDER is a folder `tools/ksync bench` wrote (JSON, fingerprint.json, report.md, plots),
e.g. docs/results/2026-11-30-h200-report. Every figure is read from that folder's JSON; none is typed.
usage: readme-headline RESULTS_FOLDER   rewrite the headline from that folder (named in its first marker)
       readme-headline --check           exit 1 when README.md's headline is not what its folder gives"""

import json
import pathlib
import sys

from ksync_tools.results import counter, load
from ksync_tools.tables import markdown_table

README = pathlib.Path(__file__).resolve().parent.parent.parent / "README.md"
BEGIN = "<!-- headline: written by tools/readme-headline "  # + the folder; the line ends with "-->"
END = "<!-- headline: end -->"


def headline(folder, link):
    rows, contexts = load(folder)
    fingerprint = json.loads((folder / "fingerprint.json").read_text())

    def seconds(name):
        row = rows.get(name)
        return row["median"] if row else None

    def per_barrier(name):  # the median over the repetitions, as every other figure
        return counter(rows.get(name), "seconds_per_barrier")

    def us(value, digits=2):
        return "—" if value is None else f"{value * 1e6:.{digits}f} µs"

    def ns(value):
        return "—" if value is None else f"{value * 1e9:.0f} ns"

    def rate(n_bytes, value):
        return "—" if value is None else f"{n_bytes / value / 1e12:.2f} TB/s"

    strategies = ["two_pass", "last_block", "grid_sync", "cluster", "atomics"]
    lines = []
    gpu = contexts.get("native", {}).get("gpu", "the GPU")
    kokkos = contexts.get("portable", {}).get("kokkos_version", "?")
    if kokkos.isdigit():  # Kokkos' version number: major * 10000 + minor * 100 + patch
        kokkos = f"{int(kokkos) // 10000}.{int(kokkos) // 100 % 100}.{int(kokkos) % 100:02d}"
    if (folder / "report.md").exists():
        whole = f"The whole report, with every size, the ceilings and the noise: [{link}/report.md]({link}/report.md)."
    else:  # a folder keeps the JSON; the report is made again from it (CONTRIBUTING.md, results folders)
        whole = (f"What ran and what was left out: [{link}/README.md]({link}/README.md); `tools/report-md {link}` "
                 f"writes the whole report, with every size, the ceilings and the noise.")
    lines.append(f"Measured on an {gpu}, {fingerprint.get('started_utc', '?')[:10]}, commit "
                 f"{str(fingerprint.get('commit', '?'))[:7]}, Kokkos {kokkos} (CUDA); median of 3 repetitions. "
                 f"{whole}\n")
    table_rows = []
    for n in (1 << 20, 1 << 28):
        best = min(((seconds(f"native/reduce/sum/float/{s}/{n}"), s) for s in strategies
                    if seconds(f"native/reduce/sum/float/{s}/{n}")), default=(None, "—"))
        tuned = seconds(f"portable/reduce/sum/float/tuned/{n}")
        cub = seconds(f"cub/reduce/sum/float/{n}")
        kokkos_reduce = seconds(f"portable/reduce/sum/float/kokkos/{n}")
        show = (lambda v: us(v)) if n < (1 << 24) else (lambda v: rate(4 * n, v))
        table_rows.append([f"float sum, n = 2^{n.bit_length() - 1}", f"{show(best[0])} ({best[1]})",
                           f"{show(tuned)} (tuned)",
                           f"CUB {show(cub)} · Kokkos `parallel_reduce` {show(kokkos_reduce)}"])
    n = 1 << 28
    table_rows.append(["y = 2x, n = 2^28 (read + write)", rate(8 * n, seconds(f"native/transform/float/{n}")),
                 f"{rate(8 * n, seconds(f'portable/transform/float/tuned/{n}'))} (tuned)",
                 f"device copy {rate(8 * n, seconds(f'native/device_copy/float/{n}'))} · Kokkos `parallel_for` "
                 f"{rate(8 * n, seconds(f'portable/transform/float/kokkos/{n}'))}"])
    table_rows.append(["barrier, block of 1024 threads",
                       f"`__syncthreads` {ns(per_barrier('native/barrier/syncthreads/1024'))}",
                       f"`team_barrier` {ns(per_barrier('portable/barrier/team_barrier/1024'))}", ""])
    table_rows.append(["grid barrier (one 256-thread block per SM) · step between two empty kernels",
                 f"`grid.sync()` {us(per_barrier('native/barrier/grid_sync/1_block_per_sm'))} · spin barrier "
                 f"{us(per_barrier('native/barrier/spin_barrier/1_block_per_sm'))}",
                 f"Kokkos graph node {us(per_barrier('portable/barrier/kokkos_graph_node'))}",
                 f"kernel relaunch {us(per_barrier('native/barrier/kernel_relaunch'))} · CUDA graph node "
                 f"{us(per_barrier('native/barrier/cuda_graph_node'))}"])
    reference = "depth_first/streams:4/chunk_kib:4096"
    serial = "depth_first/streams:1/chunk_kib:65536"
    table_rows.append(["pipeline, 64 MiB each way over PCIe (4 streams, 4 MiB chunks)",
                 us(seconds(f"native/pipeline/{reference}"), 0), us(seconds(f"portable/pipeline/{reference}"), 0),
                 f"one stream, one chunk: {us(seconds(f'native/pipeline/{serial}'), 0)}"])
    lines.extend(markdown_table(["what", "native (`ksync::cuda`)", "portable (`ksync`, Kokkos)", "baselines"], "lrrr",
                                table_rows))
    full, top = folder / "reduce_bandwidth.png", folder / "reduce_bandwidth_headline.png"
    if full.exists() and top.exists():
        lines.append("")
        lines.extend(markdown_table(["float sum: each half's best, CUB, Kokkos, the ceiling", "every strategy"], "ll",
                                    [[f"![float sum: bandwidth against n, headline]({link}/{top.name})",
                                      f"![float sum: bandwidth against n, every implementation]({link}/{full.name})"]]))
    elif full.exists():
        lines.append(f"\n![float sum: bandwidth against n, every implementation]({link}/reduce_bandwidth.png)")
    return "\n".join(lines)


def main():
    arguments = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv
    readme = README.read_text()
    if BEGIN not in readme or END not in readme:
        sys.exit(f"readme-headline: README.md lacks the markers\n{BEGIN}FOLDER -->\n{END}")
    before, rest = readme.split(BEGIN, 1)
    marker_rest, rest = rest.split("\n", 1)
    _, after = rest.split(END, 1)
    if check and not arguments:
        arguments = [marker_rest.split()[0]]  # the folder the headline was written from
    if len(arguments) != 1:
        sys.exit(__doc__)
    root = README.parent.resolve()
    folder = (root / arguments[0]).resolve()
    link = folder.relative_to(root).as_posix()  # README's links: from the repository root
    updated = f"{before}{BEGIN}{link} -->\n{headline(folder, link)}\n{END}{after}"
    if check:
        if updated != readme:
            sys.exit(f"readme-headline: README.md's headline differs from what {link} gives; run "
                     f"tools/readme-headline {link}")
        print(f"readme-headline: README.md's headline is what {link} gives")
        return
    README.write_text(updated)
    print(f"readme-headline: README.md's headline now comes from {link}")


if __name__ == "__main__":
    main()
