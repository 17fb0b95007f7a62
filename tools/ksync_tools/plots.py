# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The report's plots (report-md), drawn in the grammar of plot_style: bandwidth vs n of the reduction
(with the ceiling the reduction table computes), of the transform (with the device copies it compares
with) and of the index functors' float copy and dot (stream_tables), Kokkos / native, barrier costs, CG µs
per iteration (solver_tables) with its floors, CG on assembled matrices (sparse_tables) with each
recurrence's bytes floor, a pipeline timeline; and of each bandwidth and CG plot a headline plot
(headline_plots) drawn from the full plot's series, placed beside it in a two-column table."""

from ksync_tools import plot_style, solver_tables, sparse_tables, timeline
from ksync_tools.headline_plots import headline
from ksync_tools.results import counter
from ksync_tools.tables import markdown_table


BANDWIDTH_AXES = ("n (elements)", "GB/s (bytes moved / median time)")


def bandwidth_plot(plt, folder, caption, file, title, series, bytes_per_element, bounds=()):
    """GB/s against n of every {label: sized rows} in series; bounds: (label, {n: bytes/s}, role)."""
    figure = plot_style.Figure(plt, folder, file, title, *BANDWIDTH_AXES)
    for label, table in series.items():
        if table:
            sizes = sorted(table)
            figure.line(label, sizes, [bytes_per_element * n / table[n]["median"] / 1e9 for n in sizes])
    if not figure.series:
        return figure.save(caption), []
    for label, rates, role in bounds:
        sizes = sorted(n for n, rate in rates.items() if rate)
        if sizes:
            figure.bound(label, sizes, [rates[n] / 1e9 for n in sizes], role)
    figure.axes.set_xscale("log", base=2)
    figure.axes.set_yscale("log")
    return figure.save(caption), figure.series


def barrier_plot(plt, folder, caption, rows):
    barriers = sorted(((counter(row, "seconds_per_barrier") * 1e9, name) for name, row in rows.items()
                       if "/barrier/" in name and counter(row, "seconds_per_barrier") is not None), reverse=True)
    if not barriers:
        return None, []
    figure = plot_style.Figure(plt, folder, "barrier_costs.png", "what one barrier costs",
                               "ns per barrier (log)", "benchmark", size=(9, 0.3 * len(barriers) + 1.6))
    series = []
    for half in ("native", "portable"):
        picked = [(cost, name) for cost, name in barriers if name.startswith(half + "/")]
        if picked:
            colour = plot_style.HALF_COLOUR[half]
            figure.axes.barh([name for _, name in picked], [cost for cost, _ in picked], color=colour,
                             hatch="" if half == "native" else "//", edgecolor="white", label=half)
            series.append({"label": half, "colour": colour, "style": "bar" + half, "marker": "None",
                           "x": [name for _, name in picked], "y": [cost for cost, _ in picked], "role": "data",
                           "bounds": None})
    figure.axes.set_xscale("log")
    return figure.save(caption), series


def ratio_plot(plt, folder, caption, ratios):
    pairs = {k: v for k, v in (("float sum", ratios.get("reduce")), ("transform y = 2x", ratios.get("transform")))
             if v}
    if not any(value for series in pairs.values() for value in series.values()):
        return None, []
    figure = plot_style.Figure(plt, folder, "kokkos_over_native.png", "Kokkos / native", "n (elements)",
                               "speed ratio: ksync tuned (portable) / native best", size=(9, 4.5))
    for label, series in pairs.items():
        sizes = sorted(n for n, value in series.items() if value)
        figure.line(label, sizes, [series[n] for n in sizes])
    sizes = sorted(set().union(*[set(s) for s in pairs.values()]))
    figure.bound("parity (1.0)", [sizes[0], sizes[-1]], [1.0, 1.0], "reference")
    figure.axes.set_xscale("log", base=2)
    return figure.save(caption), figure.series


def plots(folder, rows, ratios, out):
    """Draws every plot into folder, links them from `out`; returns {file: [series]} of what it drew (every
    line: label, colour, style, marker, x, y, role = data | ceiling | floor | reference, bounds)."""
    try:
        import matplotlib
    except ImportError:
        out.append("Plots: not drawn — matplotlib is not installed (Debian: python3-matplotlib; "
                   "tools/ksync-env installs it). The tables above hold every number.\n")
        return {}
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    caption = plot_style.caption(folder)
    drawn = []  # (file, series, title), and where a headline was drawn ((headline...), (full...))

    def with_headline(file, series, title, xlabel, ylabel, better, **options):
        """The full plot's entry beside its headline's (drawn from the full plot's series)."""
        top = headline(plt, folder, caption, series, file.replace(".png", "_headline.png"),
                       f"{title} (headline)", xlabel, ylabel, better, **options) if file else (None, [])
        drawn.append(((*top, f"{title}: headline"), (file, series, title)) if top[0] else (file, series, title))
    if "reduce_rows" in ratios:
        native, cub, kokkos, tuned, ceiling = ratios["reduce_rows"]
        series = {f"native {s}": t for s, t in native.items()}
        series.update({"CUB": cub, "Kokkos parallel_reduce": kokkos, "ksync tuned": tuned})
        with_headline(*bandwidth_plot(plt, folder, caption, "reduce_bandwidth.png", "float sum: bandwidth vs n",
                                      series, 4, [("ceiling: fastest stream of the run", ceiling, "ceiling")]),
                      "float sum: bandwidth vs n", *BANDWIDTH_AXES, max)
    if "transform_rows" in ratios:
        tables = dict(ratios["transform_rows"])
        # The table gives each transform as % of the device copy of its half, not as a bound: small
        # transforms beat the copy.
        copies = [(label, {n: 8 * n / row["median"] for n, row in tables.pop(label).items()}, "reference")
                  for label in ("native copy", "Kokkos copy") if tables.get(label)]
        with_headline(*bandwidth_plot(plt, folder, caption, "transform_bandwidth.png",
                                      "transform y = 2x: bandwidth vs n", tables, 8, copies),
                      "transform y = 2x: bandwidth vs n", *BANDWIDTH_AXES, max)
    for kernel, title in (("copy", "index functors, float copy c = a: bandwidth vs n"),
                          ("dot", "index functors, float dot Σ a b: bandwidth vs n")):
        series, copy = ratios.get("stream_rows", {}).get(kernel, ({}, {}))
        if series:
            # The copy is a reference, not a bound: data in L2 (2^22 floats and below) moves faster.
            with_headline(*bandwidth_plot(plt, folder, caption, f"stream_{kernel}_bandwidth.png", title, series, 8,
                                          [("device copy (native)", copy, "reference")]),
                          title, *BANDWIDTH_AXES, max)
    drawn.append((*ratio_plot(plt, folder, caption, ratios), "Kokkos / native"))
    drawn.append((*barrier_plot(plt, folder, caption, rows), "barrier costs"))
    with_headline(*solver_tables.plot(plt, folder, ratios.get("solvers"), caption),
                  "conjugate gradients: µs per iteration", "m (m x m unknowns)", "µs per iteration (median)", min,
                  per="m", size=(10, 6))
    for matrix, measured in (ratios.get("sparse_solvers") or {}).items():
        with_headline(*sparse_tables.plot(plt, folder, matrix, measured, caption),
                      f"CG on the assembled {matrix} matrix: µs per iteration", sparse_tables.axis_label(matrix),
                      "µs per iteration (median)", min, per="m", size=(10, 6))
    trace = folder / "traces" / "native-pipeline-depth_first-streams:4-chunk_kib:4096.json"
    if trace.exists():
        timeline.draw(plt, trace, folder / "pipeline_timeline.png", "the chunked pipeline (depth-first, 4 streams, 4 MiB), one run", caption)
        drawn.append(("pipeline_timeline.png", [], "pipeline timeline"))
    for entry in drawn:
        if isinstance(entry[0], tuple):  # a headline and its full plot, side by side
            out.extend(markdown_table(["headline: each half's best, the baselines, the bounds", "every series"],
                                      "ll", [[f"![{title}]({file})" for file, _, title in entry]]))
            out.append("")
        elif entry[0]:
            out.append(f"![{entry[2]}]({entry[0]})\n")
    plotted = [plot for entry in drawn for plot in (entry if isinstance(entry[0], tuple) else [entry])]
    return {file: series for file, series, _ in plotted if file}
