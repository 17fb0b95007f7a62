# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Headline plots (report-md): of a full plot's recorded series (plot_style.Figure), only what a reader
compares: the best native and the best portable series at each n (the fastest strategy or form of that half
at that n; a note beside the legend says which won where), the vendor and Kokkos baselines, and the full
plot's ceilings, floors and references with the same data. Nothing is recomputed from the tables."""

from ksync_tools import plot_style
from ksync_tools.tables import power


def best_per_x(candidates, better):
    """(xs, ys, winners) of the best y at each x over candidates (recorded data series); better: max or min."""
    at = {}
    for line in candidates:
        for x, y in zip(line["x"], line["y"]):
            at.setdefault(x, []).append((y, line["label"]))
    xs = sorted(at)
    picked = [better(at[x], key=lambda pair: pair[0]) for x in xs]
    return xs, [y for y, _ in picked], [label for _, label in picked]


def runs(xs, winners, fmt):
    """'two_pass 2^10–2^14, cluster 2^16–2^30': the winners over consecutive x."""
    parts = []
    start = 0
    for i in range(1, len(xs) + 1):
        if i == len(xs) or winners[i] != winners[start]:
            span = fmt(xs[start]) if i - 1 == start else f"{fmt(xs[start])}–{fmt(xs[i - 1])}"
            parts.append(f"  {winners[start]}: {span}")
            start = i
    return parts


def headline(plt, folder, caption, full, file, title, xlabel, ylabel, better, fmt=power, per="n", size=(9, 5.5)):
    """Draws `file` from `full` (the full plot's series); better: max (bandwidth) or min (time); per: the
    name of x in the labels. Returns (file drawn or None, its series)."""
    data = [line for line in full if line["role"] == "data"]
    if not data:
        return None, []
    figure = plot_style.Figure(plt, folder, file, title, xlabel, ylabel, size=size)
    note = []
    kept = []
    for half in ("native", "portable"):
        candidates = [line for line in data if plot_style.identity(line["label"])[0] == half]
        if not candidates:
            continue
        xs, ys, winners = best_per_x(candidates, better)
        label = f"best {half} (per {per})"
        figure.line(label, xs, ys)
        figure.series[-1]["picked"] = winners
        kept.append(label)
        note += [f"{label}:"] + runs(xs, [w.removeprefix(half + " ") for w in winners], fmt)
    for line in data:
        if plot_style.identity(line["label"])[0] == "baseline":
            figure.line(line["label"], line["x"], line["y"])
            kept.append(line["label"])
    for line in full:
        if line["role"] == "data":
            continue
        bounds = line["bounds"]
        if bounds is not None:
            # A bound of some forms bounds the headline's baselines among them; of none of them: left out.
            bounds = [label for label in bounds if label in kept]
            if not bounds:
                continue
        figure.bound(line["label"], line["x"], line["y"], line["role"], bounds)
    figure.note("\n".join(note))
    figure.axes.set_xscale("log", base=2)
    figure.axes.set_yscale("log")
    return figure.save(caption), figure.series
