# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The report's solver section (report-md): the blocking round trip host to host, conjugate gradients per
form and grid beside the two floors measured in the same run (bytes an iteration moves over the device copy
rate; two grid.sync() per iteration on the persistent form's grid), the speed-ups against the CG Kokkos
codes write today (kokkos_host_scalars), the solver targets checked, and a plot of µs per iteration."""

from ksync_tools.results import counter, sized
from ksync_tools.tables import markdown_table

PORTABLE_FORMS = ["host_scalars", "device_scalars", "fused", "kokkos_graph"]
NATIVE_FORMS = ["host_scalars", "device_scalars", "fused", "cuda_graph", "persistent_grid_sync",
                "persistent_spin_barrier", "persistent_cluster"]
BASELINE = "portable/cg/kokkos_host_scalars/double"
ROUND_TRIPS = [("ksync::cuda::reduce (mailbox)", "native/round_trip/ksync_mailbox/float"),
               ("ksync::reduce on Kokkos::Cuda", "portable/round_trip/ksync/float"),
               ("ksync::reduce, tuned (Kokkos alone)", "portable/round_trip/ksync_tuned/float"),
               ("copy + stream synchronize (ksync before)", "native/round_trip/copy_and_synchronize/float"),
               ("CUB + copy + synchronize", "native/round_trip/cub/float"),
               ("Kokkos parallel_reduce to a host scalar", "portable/round_trip/kokkos/float")]


def per_iteration(rows, family):
    """{m: µs per iteration} of a CG family."""
    return {m: counter(row, "seconds_per_iteration") * 1e6 for m, row in sized(rows, family).items()
            if counter(row, "seconds_per_iteration") is not None}


def fmt(value, digits=1):
    return "—" if value is None else f"{value:.{digits}f}"


def cg_series(rows):
    """Every measured CG family: {label: {m: µs per iteration}}, the baseline first."""
    series = {"Kokkos CG (baseline)": per_iteration(rows, BASELINE)}
    series.update({f"portable {f}": per_iteration(rows, f"portable/cg/{f}/double") for f in PORTABLE_FORMS})
    series.update({f"native {f}": per_iteration(rows, f"native/cg/{f}/double") for f in NATIVE_FORMS})
    series.update({f"portable pipelined {f}": per_iteration(rows, f"portable/cg/pipelined/{f}/double")
                   for f in PORTABLE_FORMS})
    series.update({f"native pipelined {f}": per_iteration(rows, f"native/cg/pipelined/{f}/double")
                   for f in NATIVE_FORMS})
    return {label: values for label, values in series.items() if values}


# What floors() returns per m, by index.
FUSED_BYTES, UNFUSED_BYTES, TWO_SYNCS, PIPELINED_BYTES, ONE_SYNC = range(5)

# The double vectors of m x m an iteration keeps live, as the native solver holds them (context.cuh): classic x,
# r, the two directions and A p; pipelined x, r, the two w, z, s and p.
LIVE_VECTORS = {"classic": 5, "pipelined": 7}


def vectors_fit_l2(m, l2_bytes, recurrence):
    """True where every vector the recurrence keeps fits the device's L2 at once: the bytes floors count each
    pass as DRAM traffic, which such a system need not make, so they bound nothing there (an H100 ran the
    grid-wide persistent forms 5 % under the fused floor at m = 1024, docs/results/2026-12-06-h100-4f787e1)."""
    return bool(l2_bytes) and LIVE_VECTORS[recurrence] * 8 * m * m <= l2_bytes


def l2_bytes_of(contexts):
    """The L2 size a native suite file of the folder recorded (0 where none did: runs before the field, CPU
    backends)."""
    sizes = [context.get("l2_cache_bytes", "") for context in contexts.values()]
    return max((int(size) for size in sizes if str(size).isdigit()), default=0)


def floors(rows, sizes):
    """{m: (bandwidth floor fused, unfused, two grid.sync, bandwidth floor pipelined, one grid.sync)} in µs, from
    the same run's rows (the pipelined recurrence: 12 vector passes and one grid barrier an iteration)."""
    copy = rows.get("native/cg_floor/copy/double")
    rate = copy["rate"] if copy and copy.get("rate") else None
    if rate is None:
        # No native suite (a CPU backend): the fastest copy the portable suite timed, read + write bytes, so
        # that the floor stays below every size's time (in cache or not).
        rate = max((8 * n / row["median"] for n, row in sized(rows, "portable/device_copy/float").items()
                    if row["median"]), default=None)
    syncs = sized(rows, "native/cg_floor/grid_sync")
    out = {}
    for m in sizes:
        def passes(count):
            return count * 8 * m * m / rate * 1e6 if rate else None
        barrier = counter(syncs.get(m), "seconds_per_barrier")
        out[m] = (passes(10), passes(14), 2 * barrier * 1e6 if barrier is not None else None, passes(12),
                  barrier * 1e6 if barrier is not None else None)
    return out, rate


def round_trip_section(rows, out):
    tables = [(label, sized(rows, family)) for label, family in ROUND_TRIPS]
    sizes = sorted(set().union(*[set(t) for _, t in tables]))
    if not sizes:
        return
    out.append("### Blocking round trip, host to host\n")
    out.append("µs per blocking float sum, from the call to the value on the host (median of samples of 50 "
               "calls). The mailbox posts the value into mapped pinned memory and the host waits on it; the "
               "others copy it and synchronize the stream. Target: 10 µs at n ≤ 2^20.\n")
    lines = [[f"2^{n.bit_length() - 1}"] + [fmt(counter(t.get(n), "seconds_per_call") * 1e6
                                               if counter(t.get(n), "seconds_per_call") else None)
                                           for _, t in tables] for n in sizes]
    out.extend(markdown_table(["n"] + [label for label, _ in tables], "r" * (len(tables) + 1), lines))
    out.append("")


def cg_section(rows, out, l2_bytes=0):
    series = cg_series(rows)
    sizes = sorted(set().union(*[set(v) for v in series.values()])) if series else []
    if not sizes:
        return None
    floor, rate = floors(rows, sizes)
    out.append("### Conjugate gradients, µs per iteration\n")
    out.append("2-D Poisson on m x m unknowns, double, 200 iterations per solve, timed host to host (start and "
               "final look included). Floors from the same run: bytes an iteration moves (10 vector passes "
               "fused, 14 unfused) over the device copy rate"
               + (f" ({rate / 1e12:.2f} TB/s)" if rate and "native/cg_floor/copy/double" in rows else "")
               + (f" (no native suite: the fastest portable copy, {rate / 1e9:.0f} GB/s)"
                  if rate and "native/cg_floor/copy/double" not in rows else "") +
               ", and two grid.sync() per iteration on the persistent form's grid; the pipelined recurrence's "
               "rows (12 vector passes, one grid.sync() an iteration) have floors of their own.\n")
    in_l2 = {recurrence: [m for m in sizes if vectors_fit_l2(m, l2_bytes, recurrence)] for recurrence in LIVE_VECTORS}
    if in_l2["classic"] or in_l2["pipelined"]:
        out.append(f"At m = {', '.join(map(str, in_l2['classic'])) or '—'} (classic) and m = "
                   f"{', '.join(map(str, in_l2['pipelined'])) or '—'} (pipelined) every vector an iteration keeps "
                   f"({LIVE_VECTORS['classic']} and {LIVE_VECTORS['pipelined']} of 8 m² bytes) fits the L2 "
                   f"({l2_bytes / 2**20:.0f} MiB): there the bytes floors count DRAM traffic the solve need not make, "
                   "so they are references, not bounds (the plot draws them apart).\n")
    labels = list(series)
    header = ["m"] + labels + ["floor: bytes (fused)", "floor: bytes (unfused)", "floor: 2 grid.sync",
                               "floor: bytes (pipelined)", "floor: 1 grid.sync"]
    lines = [[str(m)] + [fmt(series[label].get(m)) for label in labels] + [fmt(v) for v in floor[m]]
             for m in sizes]
    out.extend(markdown_table(header, "r" * len(header), lines))
    out.append("")
    baseline = series.get("Kokkos CG (baseline)", {})
    portable = [label for label in labels if label.startswith("portable ")]
    out.append("Speed-up over the baseline (its time / the form's), and each form's time over its bandwidth "
               "floor:\n")
    header = ["m", "native persistent_grid_sync ×", "best portable ×", "best portable form",
              "native persistent_grid_sync / floor", "best portable / floor"]
    lines = []
    for m in sizes:
        persistent = series.get("native persistent_grid_sync", {}).get(m)
        best = min(((series[label][m], label) for label in portable if m in series[label]), default=None)
        base = baseline.get(m)
        lines.append([str(m), fmt(base / persistent if base and persistent else None, 2),
                      fmt(base / best[0] if base and best else None, 2), best[1] if best else "—",
                      fmt(persistent / floor[m][0] if persistent and floor[m][0] else None, 2),
                      fmt(best[0] / floor[m][0] if best and floor[m][0] else None, 2)])
    out.extend(markdown_table(header, "rrrlrr", lines))
    out.append("")
    return series, floor, l2_bytes


def targets_section(series, floor, out):
    """The solver targets (docs/solvers.md), checked against this run."""
    baseline = series.get("Kokkos CG (baseline)", {})
    persistent = series.get("native persistent_grid_sync", {})
    portable = {m: min(v[m] for label, v in series.items() if label.startswith("portable ") and m in v)
                for m in baseline if any(label.startswith("portable ") and m in v for label, v in series.items())}
    checks = []
    for m, want, name, table in ((64, 8, "native persistent_grid_sync", persistent),
                                 (128, 8, "native persistent_grid_sync", persistent),
                                 (256, 8, "native persistent_grid_sync", persistent),
                                 (1024, 3, "native persistent_grid_sync", persistent),
                                 (64, 3, "best portable form", portable), (128, 3, "best portable form", portable),
                                 (256, 3, "best portable form", portable), (1024, 2, "best portable form", portable)):
        if m in table and m in baseline:
            got = baseline[m] / table[m]
            checks.append([f"{name} at m = {m}", f"≥ {want}×", f"{got:.2f}×", "met" if got >= want else "missed"])
    pipelined_persistent = {m: min(series[label][m] for label in series
                                   if label.startswith("native pipelined persistent") and m in series[label])
                            for m in baseline if any(label.startswith("native pipelined persistent")
                                                     and m in series[label] for label in series)}
    for m in (64, 128, 256):  # the pipelined persistent kernel, one grid barrier an iteration: >= 10x
        if m in pipelined_persistent and m in baseline:
            got = baseline[m] / pipelined_persistent[m]
            checks.append([f"native pipelined persistent (the faster barrier) at m = {m}", "≥ 10×", f"{got:.2f}×",
                           "met" if got >= 10 else "missed"])
    any_persistent = {m: min(series[label][m] for label in series
                             if label.startswith(("native persistent", "native pipelined persistent"))
                             and m in series[label])
                      for m in baseline if any(label.startswith(("native persistent", "native pipelined persistent"))
                                               and m in series[label] for label in series)}
    for m in (64, 128, 256):  # issue 31: any native persistent form, either recurrence, any barrier: >= 10x
        if m in any_persistent and m in baseline:
            got = baseline[m] / any_persistent[m]
            checks.append([f"fastest native persistent form (either recurrence, any barrier) at m = {m}", "≥ 10×",
                           f"{got:.2f}×", "met" if got >= 10 else "missed"])
    if 4096 in floor and floor[4096][0]:
        for label, values in series.items():
            if 4096 in values:
                fused = not any(label.endswith(f) for f in ("host_scalars", "device_scalars", "(baseline)"))
                bound = floor[4096][PIPELINED_BYTES] if " pipelined " in label else \
                    floor[4096][0] if fused else floor[4096][1]
                got = values[4096] / bound
                checks.append([f"{label} at m = 4096", "≤ 1.15 × its floor", f"{got:.2f} ×",
                               "met" if got <= 1.15 else "missed"])
    if checks:
        out.append("Targets, this run:\n")
        out.extend(markdown_table(["target", "wanted", "measured", ""], "lrrl", checks))
        out.append("")


def main_section(rows, out, l2_bytes=0):
    """Appends the solver section to `out` (nothing without solver rows); returns what the plot needs.
    l2_bytes: the device's L2 (l2_bytes_of), where the bytes floors stop being bounds; 0: unknown."""
    if not any("/cg/" in name or "/round_trip/" in name for name in rows):
        return None
    out.append("## Solvers: conjugate gradients and the blocking round trip\n")
    round_trip_section(rows, out)
    measured = cg_section(rows, out, l2_bytes)
    if measured:
        series, floor, _ = measured
        targets_section(series, floor, out)
    return measured


def plot(plt, folder, measured, caption=""):
    """µs per iteration against m, every form and the floors (plot_style); returns (file drawn or None,
    its series)."""
    if not measured:
        return None, []
    from ksync_tools.plot_style import Figure

    series, floor, l2_bytes = measured
    figure = Figure(plt, folder, "cg_iteration.png", "conjugate gradients: µs per iteration",
                    "m (m x m unknowns)", "µs per iteration (median)", size=(10, 6))
    for label, values in series.items():
        sizes = sorted(values)
        figure.line(label, sizes, [values[m] for m in sizes])
    unfused = [label for label in series if label.endswith(("host_scalars", "device_scalars", "(baseline)"))]
    # The grid.sync floors bound the grid-wide persistent forms; persistent_cluster's barrier is its cluster's.
    grid_wide = [label for label in series if "persistent" in label and "persistent_cluster" not in label]
    persistent = [label for label in grid_wide if " pipelined " not in label]
    pipelined = [label for label in series if " pipelined " in label]
    pipelined_persistent = [label for label in pipelined if label in grid_wide]
    # A bytes floor bounds only where the vectors do not all fit the L2; below that it is drawn as a reference.
    for index, label, bounds, recurrence in ((FUSED_BYTES, "floor: bytes (fused)", None, "classic"),
                                             (UNFUSED_BYTES, "floor: bytes (unfused)", unfused, "classic"),
                                             (TWO_SYNCS, "floor: 2 grid.sync", persistent, None),
                                             (PIPELINED_BYTES, "floor: bytes (pipelined)", pipelined, "pipelined"),
                                             (ONE_SYNC, "floor: 1 grid.sync", pipelined_persistent, None)):
        sizes = sorted(m for m in floor if floor[m][index])
        if not sizes or bounds == []:
            continue
        cached = [m for m in sizes if recurrence and vectors_fit_l2(m, l2_bytes, recurrence)]
        beyond = [m for m in sizes if m not in cached]
        if beyond:
            figure.bound(label, beyond, [floor[m][index] for m in beyond], "floor", bounds)
        if cached:
            figure.bound(label.replace("floor: ", "") + ", vectors in L2 (not a bound)", cached,
                         [floor[m][index] for m in cached], "reference", bounds)
    figure.axes.set_xscale("log", base=2)
    figure.axes.set_yscale("log")
    return figure.save(caption), figure.series
