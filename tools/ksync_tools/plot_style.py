# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""One visual grammar for every plot of the report (report-md, solver_tables): a fixed colour and marker per
implementation or strategy name, the same in every plot and every run (a fixed table for the known names, a
hash into a palette for the others); the line style says the half (native solid, portable dotted, vendor and
Kokkos baselines dashed, ceilings and floors thin grey); legends outside the data; a caption with the GPU,
commit and date of the run (fingerprint.json). Every line drawn through `line` is recorded, so that a test
can read what a plot shows (label, colour, style, marker, x, y, role, what a ceiling or floor bounds)."""

import json
import zlib

# Strategy or form name (the label without its half) -> (colour, marker).
KNOWN = {
    # native and portable reduction strategies
    "two_pass": ("#1f77b4", "o"), "last_block": ("#ff7f0e", "s"), "grid_sync": ("#2ca02c", "^"),
    "cluster": ("#d62728", "v"), "atomics": ("#9467bd", "D"), "team": ("#bcbd22", "X"),
    "tuned": ("#e7298a", "P"),
    # transform, native
    "transform": ("#17becf", "o"),
    # CG forms of both halves
    "host_scalars": ("#17becf", "o"), "device_scalars": ("#e377c2", "s"), "fused": ("#393b79", "^"),
    "kokkos_graph": ("#e7ba52", "D"), "cuda_graph": ("#ad494a", "D"), "persistent_grid_sync": ("#637939", "v"),
    "persistent_spin_barrier": ("#7b4173", "P"), "persistent_cluster": ("#e6550d", "X"),
    # index strategies (index functors) and the reduce strategies they reach (reduce-<strategy>)
    "kokkos": ("#8c564b", "<"), "batched": ("#e6ab02", ">"), "thread_per_index": ("#1b9e77", "p"),
    "block_batched": ("#d95f02", "h"), "grid_stride": ("#7570b3", "X"), "reduce-kokkos": ("#8c564b", "d"),
    "reduce-team": ("#bcbd22", "X"), "reduce-tuned": ("#e7298a", "P"), "bridge reduce-last_block": ("#ff7f0e", "s"),
    # vendor and Kokkos baselines, and the hand-written CUDA kernel
    "CUB": ("#000000", "*"), "Kokkos": ("#843c39", "h"), "hand-written": ("#525252", "d"),
    # headline plots (headline_plots.py): the fastest of each half at each n
    "best native": ("#08519c", "o"), "best portable": ("#c51b7d", "s"),
    # the sparse CG plots (sparse_tables.py): each half's fastest form per recurrence, and NVIDIA's sample CG
    "best Jacobi": ("#31a354", "^"), "best pipelined": ("#fd8d3c", "v"), "cuSPARSE": ("#76b900", "X"),
    # ratios per pattern (kokkos_over_native)
    "float sum": ("#2ca02c", "o"), "transform y = 2x": ("#9467bd", "s"),
}
PALETTE = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#1f78b4", "#b2df8a",
           "#fb9a99", "#cab2d6", "#6a3d9a", "#b15928", "#8dd3c7"]
MARKERS = ["o", "s", "^", "v", "D", "P", "X", "*", "h", "<", ">", "p"]
HALF_STYLE = {"native": "-", "portable": ":", "baseline": "--"}
# Bars of a chart of both halves (barrier costs), hatched for the portable half too.
HALF_COLOUR = {"native": "#1f77b4", "portable": "#e7298a"}
# Ceilings and floors: thin grey, told apart by shade and dash.
BOUND_STYLES = [("#555555", "-."), ("#999999", "--"), ("#555555", (0, (1, 1))), ("#999999", "-"),
                ("#555555", (0, (5, 2))), ("#999999", (0, (3, 1, 1, 1)))]


def identity(label):
    """(half, strategy name) of a series label such as 'native two_pass', 'ksync tuned', 'Kokkos CG'."""
    for half in ("native", "portable"):
        if label.startswith(f"best {half}"):  # "best native (per n)"; "best native Jacobi": "best Jacobi" there
            rest = label.removeprefix(f"best {half}").strip()
            return half, f"best {rest}" if rest and not rest.startswith("(") else f"best {half}"
    if label.startswith("native "):
        return "native", label.removeprefix("native ")
    if label.startswith("portable "):
        return "portable", label.removeprefix("portable ")
    if label.startswith("ksync tuned"):
        return "portable", "tuned"
    if label == "native":
        return "native", "transform"
    if label.startswith("CUB"):
        return "baseline", "CUB"
    if label.startswith("cuSPARSE"):
        return "baseline", "cuSPARSE"
    if label.startswith("Kokkos"):
        return "baseline", "Kokkos"
    if label.startswith("hand-written"):
        return "baseline", "hand-written"
    return "native", label


def look(label):
    """(colour, line style, marker) of a data series, the same for the same label in every plot."""
    half, name = identity(label)
    if name in KNOWN:
        colour, marker = KNOWN[name]
    else:
        code = zlib.crc32(name.encode())
        colour, marker = PALETTE[code % len(PALETTE)], MARKERS[(code // len(PALETTE)) % len(MARKERS)]
    return colour, HALF_STYLE[half], marker


class Figure:
    """One plot: draws through `line` and `bound`, records every series, saves with the caption."""

    def __init__(self, plt, folder, file, title, xlabel, ylabel, size=(9, 5.5)):
        self.plt, self.folder, self.file = plt, folder, file
        self.figure, self.axes = plt.subplots(figsize=size)
        self.axes.set_title(title)
        self.axes.set_xlabel(xlabel)
        self.axes.set_ylabel(ylabel)
        self.series = []
        self.bounds = 0

    def _record(self, label, colour, style, marker, x, y, role, bounds):
        self.series.append({"label": label, "colour": colour, "style": style, "marker": marker, "x": list(x),
                            "y": list(y), "role": role, "bounds": bounds})

    def line(self, label, x, y):
        """A data series, coloured and styled by its label."""
        colour, style, marker = look(label)
        width = 2.2 if label.startswith(("Kokkos", "best ")) or label == "CUB" else 1.4
        self.axes.plot(x, y, color=colour, linestyle=style, marker=marker, markersize=5, linewidth=width,
                       label=label)
        self._record(label, colour, style, marker, x, y, "data", None)

    def bound(self, label, x, y, role, bounds=None):
        """A ceiling (role 'ceiling': at or above `bounds`), a floor ('floor': at or below) or a reference
        line the tables compare with but do not call a bound ('reference'); bounds: the labels it bounds,
        None for every data series of the plot."""
        colour, style = BOUND_STYLES[self.bounds % len(BOUND_STYLES)]
        self.bounds += 1
        self.axes.plot(x, y, color=colour, linestyle=style, linewidth=1.0, label=label)
        self._record(label, colour, style, "None", x, y, role, bounds)

    def note(self, text):
        """A note beside the data, under the legend (headline plots: which strategy won where)."""
        if text:
            self.axes.text(1.01, 0.0, text, transform=self.axes.transAxes, fontsize="x-small", ha="left",
                           va="bottom", color="#333333")

    def save(self, caption):
        if not self.series and not self.axes.patches:
            self.plt.close(self.figure)
            return None
        self.axes.grid(True, which="both", alpha=0.3)
        if self.axes.get_legend_handles_labels()[0]:
            self.axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        if caption:
            self.figure.text(0.01, 0.005, caption, fontsize="small", color="#444444", ha="left", va="bottom")
        self.figure.tight_layout(rect=(0, 0.04, 1, 1))
        self.figure.savefig(self.folder / self.file, dpi=110, bbox_inches="tight")
        self.plt.close(self.figure)
        return self.file


def caption(folder):
    """'NVIDIA H200 · commit 48411a1 · 2026-12-02' from the folder's fingerprint.json ('' without one)."""
    path = folder / "fingerprint.json"
    if not path.exists():
        return ""
    data = json.loads(path.read_text())
    gpus = next((v for k, v in data.items() if k.startswith("gpu_at_start")), None)
    gpu = gpus[0].split(",")[0] if gpus else "no GPU"
    date = str(data.get("started_utc", ""))[:10]
    return " · ".join(part for part in (gpu, f"commit {data['commit']}" if data.get("commit") else "", date) if part)
