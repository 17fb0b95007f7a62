# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The report's sparse CG section (report-md): CG on assembled CSR matrices (the cg_csr rows), one table per
matrix. Per size: the two CGs applications run today (the Kokkos CG as its users write it for a CSR matrix,
and NVIDIA's sample CG, cuSPARSE SpMV with cuBLAS dots; and Kokkos Kernels' CG where the run has it), the fastest form of each half for each recurrence
(classic, Jacobi-preconditioned, pipelined), the fastest form's time over its bytes floor (its own
bytes_per_iteration counter over the run's copy rate, as the stencil's floors), the speed-ups over both
baselines, and a plot per matrix."""

import re

from ksync_tools.results import counter, sized
from ksync_tools.solver_tables import fmt, floors
from ksync_tools.tables import markdown_table

# <half>/cg_csr/<matrix>[/<variant>]/<form>/double/<m>: the variant is the preconditioner or the recurrence.
FAMILY = re.compile(r"^(native|portable)/cg_csr/([^/]+)/(?:(jacobi|pipelined)/)?([a-z_]+)/double$")
KOKKOS_AS_WRITTEN = "kokkos_host_scalars"
KOKKOS_KERNELS = "kokkos_kernels_host_scalars"  # timed only where Kokkos Kernels is built
CUSPARSE = "cusparse_cublas"
BASELINES = (KOKKOS_AS_WRITTEN, KOKKOS_KERNELS, CUSPARSE)
BASELINE_LABELS = ("Kokkos CG as written", "Kokkos Kernels CG", "cuSPARSE + cuBLAS CG")
VARIANTS = [("classic", None), ("Jacobi", "jacobi"), ("pipelined", "pipelined")]


def families(rows):
    """{matrix: {(half, variant, form): {m: row}}} of every cg_csr row of the run, in the order met."""
    found = {}
    for name in rows:
        head, _, size = name.rpartition("/")
        match = FAMILY.match(head)
        if match and size.isdigit():
            half, matrix, variant, form = match.groups()
            found.setdefault(matrix, {}).setdefault((half, variant, form), {})[int(size)] = rows[name]
    return found


def seconds(row):
    value = counter(row, "seconds_per_iteration")
    return value * 1e6 if value is not None else None


def fastest(table, half, variant, m):
    """(µs per iteration, form, bytes floor in µs or None) of the fastest ksync form of a half at m."""
    candidates = [(seconds(series[m]), form, counter(series[m], "bytes_per_iteration"))
                  for (h, v, form), series in table.items()
                  if h == half and v == variant and form not in BASELINES and m in series
                  and seconds(series[m]) is not None]
    return min(candidates, default=None)


def series_of(table):
    """{label: {m: µs per iteration}}: the baselines, then each half's fastest form per recurrence."""
    out = {}
    for label, key in zip(BASELINE_LABELS, (("portable", None, KOKKOS_AS_WRITTEN), ("portable", None, KOKKOS_KERNELS),
                                            ("native", None, CUSPARSE))):
        values = {m: seconds(row) for m, row in table.get(key, {}).items() if seconds(row) is not None}
        if values:
            out[label] = values
    sizes = sorted(set().union(*table.values()))
    for half in ("native", "portable"):
        for name, variant in VARIANTS:
            values = {m: best[0] for m in sizes if (best := fastest(table, half, variant, m))}
            if values:
                out[f"best {half} {name}" if variant else f"best {half}"] = values
    return out


def bytes_floors(table, rate):
    """[(label, {m: µs}, bounded labels)] per recurrence: the fewest bytes any ksync form of that recurrence
    moves an iteration (its bytes_per_iteration counter) over the run's copy rate. It bounds each half's fastest
    form of that recurrence from below: that form's time is at or above its own floor, which is at or above the
    fewest."""
    found = []
    for name, variant in VARIANTS:
        least = {}
        for (half, v, form), values in table.items():
            if v != variant or form in BASELINES or not rate:
                continue
            for m, row in values.items():
                moved = counter(row, "bytes_per_iteration")
                if moved:
                    least[m] = min(least.get(m, float("inf")), moved / rate * 1e6)
        if least:
            bounded = [f"best {half} {name}" if variant else f"best {half}" for half in ("native", "portable")]
            found.append((f"floor: bytes ({name})", least, bounded))
    return found


def matrix_section(matrix, table, rate, out):
    sizes = sorted(set().union(*table.values()))
    series = series_of(table)
    out.append(f"### {matrix}\n")
    baselines = [label for label in BASELINE_LABELS if label in series]
    columns = [(half, name, variant) for half in ("native", "portable") for name, variant in VARIANTS
               if any(fastest(table, half, variant, m) for m in sizes)]

    def cell(half, variant, m):
        best = fastest(table, half, variant, m)
        if not best:
            return "—"
        floor = best[2] / rate * 1e6 if best[2] and rate else None
        return f"{best[0]:.1f} ({best[1]}, {best[0] / floor:.2f}× floor)" if floor else f"{best[0]:.1f} ({best[1]})"

    lines = [[str(m)] + [fmt(series[label].get(m)) for label in baselines]
             + [cell(half, variant, m) for half, _, variant in columns] for m in sizes]
    header = ["m"] + baselines + [f"{half} {name} (form)" for half, name, _ in columns]
    out.extend(markdown_table(header, "r" * len(header), lines))
    out.append("")
    speedups = []
    for m in sizes:
        for half in ("native", "portable"):
            best = fastest(table, half, None, m)
            if not best:
                continue
            against = [series.get(label, {}).get(m) for label in baselines]
            speedups.append([str(m), half, best[1]] + [fmt(base / best[0] if base else None, 2) for base in against])
    if speedups:
        out.append("Speed-up of each half's fastest classic form (its time against the baseline's):\n")
        out.extend(markdown_table(["m", "half", "form"] + [f"× {label}" for label in baselines],
                                  "rll" + "r" * len(baselines), speedups))
        out.append("")
    targets_section(table, series, rate, out, 3 if matrix.endswith("3d") else 2)
    return series, bytes_floors(table, rate)


# The targets' sizes, in unknowns (the 2-D sizes they were set for: m <= 256 and m = 4096); a 3-D matrix is held
# to them at the sizes with as many unknowns (m <= 40, and m = 256: 256^3 = 4096^2).
SMALL_UNKNOWNS = 256**2
LARGE_UNKNOWNS = 4096**2


def targets_section(table, series, rate, out, dimensions=2):
    """The sparse CG's targets: up to SMALL_UNKNOWNS unknowns the fastest portable classic form >= 10x Kokkos
    Kernels' CG and the fastest native persistent one >= 20x (where the run has Kokkos Kernels' CG); at
    LARGE_UNKNOWNS each half's fastest classic form >= 1.3x the cuSPARSE + cuBLAS CG, and every ksync form
    within 1.15x its own bytes floor."""
    checks = []
    sizes = sorted(set().union(*table.values()))
    m = next((size for size in sizes if size**dimensions == LARGE_UNKNOWNS), None)
    for small, kokkos_kernels in sorted(series.get("Kokkos Kernels CG", {}).items()):
        if small == 0 or small**dimensions > SMALL_UNKNOWNS:
            continue
        wanted = (("portable", lambda form: True, 10.0),
                  ("native", lambda form: form.startswith("persistent_"), 20.0))
        for half, admits, factor in wanted:
            candidates = [(seconds(s[small]), form) for (h, v, form), s in table.items()
                          if h == half and v is None and form not in BASELINES and admits(form) and small in s
                          and seconds(s[small]) is not None]
            if candidates:
                best_time, best_form = min(candidates)
                got = kokkos_kernels / best_time
                checks.append([f"m = {small}: {half} fastest ({best_form}) against Kokkos Kernels' CG",
                               f"≥ {factor:g}×", f"{got:.1f}×", "met" if got >= factor else "missed"])
    vendor = series.get("cuSPARSE + cuBLAS CG", {}).get(m)
    for half in ("native", "portable"):
        best = fastest(table, half, None, m)
        if best and vendor:
            got = vendor / best[0]
            checks.append([f"{half} fastest classic ({best[1]}) against cuSPARSE + cuBLAS", "≥ 1.3×", f"{got:.2f}×",
                           "met" if got >= 1.3 else "missed"])
    for (half, variant, form), values in table.items():
        row = values.get(m)
        bytes_moved = counter(row, "bytes_per_iteration")
        if form in BASELINES or not row or not bytes_moved or not rate or seconds(row) is None:
            continue
        got = seconds(row) / (bytes_moved / rate * 1e6)
        checks.append([f"{half} {variant + ' ' if variant else ''}{form} over its bytes floor", "≤ 1.15×",
                       f"{got:.2f}×", "met" if got <= 1.15 else "missed"])
    if checks:
        small_m = max(k for k in range(1, 257) if k**dimensions <= SMALL_UNKNOWNS)
        large = f"m = {m}" if m else f"{LARGE_UNKNOWNS} unknowns (not in this run)"
        out.append(f"Targets (m <= {small_m} against Kokkos Kernels' CG, {large} against cuSPARSE and the floors), "
                   "this run:\n")
        out.extend(markdown_table(["target", "wanted", "measured", ""], "lrrl", checks))
        out.append("")


def section(rows, out):
    """Appends the sparse CG section to `out` (nothing without cg_csr rows); returns {matrix: (series, bytes
    floors)} for the plots."""
    found = families(rows)
    if not found:
        return {}
    sizes = sorted({m for table in found.values() for series in table.values() for m in series})
    _, rate = floors(rows, sizes)
    out.append("## Conjugate gradients on assembled sparse matrices (cg_csr)\n")
    out.append("µs per iteration (median), double, 32-bit indices, 200 iterations a solve timed host to host. "
               "Each cell of a form names the fastest form of that half and recurrence at that size, and its "
               "time over its bytes floor: the bytes an iteration of that form moves (the row's "
               "bytes_per_iteration counter) over the run's copy rate"
               + (f" ({rate / 1e12:.2f} TB/s)." if rate else " (no copy row in this run: no floor).")
               + " m: m x m unknowns in 2-D, m x m x m in 3-D; a Matrix Market file (--ksync_matrix) has one "
               "size, shown as 0.\n")
    return {matrix: matrix_section(matrix, table, rate, out) for matrix, table in found.items()}


def axis_label(matrix):
    return "m (m x m x m unknowns)" if matrix.endswith("3d") else "m (m x m unknowns)"


def plot(plt, folder, matrix, measured, caption=""):
    """µs per iteration against m for one matrix: the baselines, each half's fastest form per recurrence and
    each recurrence's bytes floor; returns (file drawn or None, its series). A matrix of one size (a file) has
    no plot: its table says it all."""
    from ksync_tools.plot_style import Figure

    series, bytes_floors_of_matrix = measured
    sizes = set().union(*series.values()) if series else set()
    if len(sizes) < 2 or 0 in sizes:
        return None, []
    figure = Figure(plt, folder, f"cg_csr_{matrix}.png", f"CG on the assembled {matrix} matrix: µs per iteration",
                    axis_label(matrix), "µs per iteration (median)", size=(10, 6))
    for label, values in series.items():
        sizes = sorted(values)
        figure.line(label, sizes, [values[m] for m in sizes])
    for label, values, bounded in bytes_floors_of_matrix:
        sizes = sorted(values)
        figure.bound(label, sizes, [values[m] for m in sizes], "floor", [b for b in bounded if b in series])
    figure.axes.set_xscale("log", base=2)
    figure.axes.set_yscale("log")
    return figure.save(caption), figure.series
