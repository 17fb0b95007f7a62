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


def joined_bounds(full, best_of):
    """[(label, xs, ys, role, bounds)]: where no single floor (ceiling) of the full plot bounds every series a
    half's best picks from, but several together do (a floor per recurrence of CG), their lowest (highest) at
    each x bounds that best: its value at x is one series' value, which is bounded by that series' own line."""
    joined = {}
    for best, picked_from in best_of.items():
        for role, pick in (("floor", min), ("ceiling", max)):
            lines = [line for line in full if line["role"] == role]
            if any(line["bounds"] is None or picked_from <= set(line["bounds"]) for line in lines):
                continue  # one line bounds that best already, or none is drawn
            covering = [line for line in lines if picked_from & set(line["bounds"])]
            if not covering or not picked_from <= set().union(*(set(line["bounds"]) for line in covering)):
                continue
            key = (role, tuple(line["label"] for line in covering))
            if key not in joined:
                xs = sorted(set.intersection(*(set(line["x"]) for line in covering)))
                ys = [pick(dict(zip(line["x"], line["y"]))[x] for line in covering) for x in xs]
                extreme = "lowest" if role == "floor" else "highest"
                joined[key] = (f"{role}: {extreme} of the full plot's {len(covering)} {role}s", xs, ys, role, [])
            joined[key][4].append(best)
    return list(joined.values())


def headline(plt, folder, caption, full, file, title, xlabel, ylabel, better, fmt=power, per="n", size=(9, 5.5)):
    """Draws `file` from `full` (the full plot's series); better: max (bandwidth) or min (time); per: the
    name of x in the labels. Returns (file drawn or None, its series)."""
    data = [line for line in full if line["role"] == "data"]
    if not data:
        return None, []
    figure = plot_style.Figure(plt, folder, file, title, xlabel, ylabel, size=size)
    note = []
    kept = []
    best_of = {}  # the headline's best series -> the full plot's series it picks from
    for half in ("native", "portable"):
        candidates = [line for line in data if plot_style.identity(line["label"])[0] == half]
        if not candidates:
            continue
        xs, ys, winners = best_per_x(candidates, better)
        label = f"best {half} (per {per})"
        figure.line(label, xs, ys)
        figure.series[-1]["picked"] = winners
        kept.append(label)
        best_of[label] = {line["label"] for line in candidates}
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
            # A bound of some forms bounds the headline's baselines among them, and a half's best where it
            # bounds every series that best picks from; a bound of none of them is left out.
            bounds = [label for label in kept if label in bounds or best_of.get(label, {None}) <= set(bounds)]
            if not bounds:
                continue
        figure.bound(line["label"], line["x"], line["y"], line["role"], bounds)
    for label, xs, ys, role, bounds in joined_bounds(full, best_of):
        figure.bound(label, xs, ys, role, bounds)
    figure.note("\n".join(note))
    figure.axes.set_xscale("log", base=2)
    figure.axes.set_yscale("log")
    return figure.save(caption), figure.series
